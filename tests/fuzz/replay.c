/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Run every file of the given corpus directories (or files) through the fuzz target. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	/* every prefix of small inputs: the cut-file paths */
	if (n < 4096)
		for (long cut = 0; cut < n; cut += 7)
			LLVMFuzzerTestOneInput(buf, (size_t)cut);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			files += run_file(argv[i]) == 0;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		while ((de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			files += run_file(path) == 0;
		}
		closedir(d);
	}
	printf("1..1\nok 1 - %d corpus files replayed without a crash\n", files);
	return files > 0 ? 0 : 1;
}
