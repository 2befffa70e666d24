/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How many CPUs this process may use (cpus.h). */
#include "base/cpus.h"

#include <sched.h>
#include <unistd.h>

int _rsp_usable_cpus(void)
{
	cpu_set_t set;

	/* the CPUs this process may run on (a cpuset or taskset may allow fewer than are online) */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}
