/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The states of a wait, one letter each (rsp-frames.h): named and parsed. */
#include "rsp-frames.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *rsp_wait_state_name(enum rsp_wait_state s)
{
	switch (s) {
	case RSP_WAIT_S:
		return "S";
	case RSP_WAIT_D:
		return "D";
	case RSP_WAIT_RUNNABLE:
		return "R";
	case RSP_WAIT_PREEMPTED:
		return "P";
	}
	return "?";
}

static unsigned letter(char c)
{
	return c == 'S' ? RSP_WAIT_S :
	       c == 'D' ? RSP_WAIT_D :
	       c == 'R' ? RSP_WAIT_RUNNABLE :
	       c == 'P' ? RSP_WAIT_PREEMPTED :
			  0;
}

int rsp_wait_states_parse(const char *s, unsigned *out, char *err, size_t errlen)
{
	*out = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned bits = 0;

		if (n == sizeof("runnable") - 1 && !strncmp(s, "runnable", n)) {
			bits = RSP_WAIT_RUNNABLE;
		} else if (n == sizeof("preempted") - 1 && !strncmp(s, "preempted", n)) {
			bits = RSP_WAIT_PREEMPTED;
		} else {
			for (size_t i = 0; i < n; i++) {
				if (!letter(s[i])) {
					bits = 0;
					break;
				}
				bits |= letter(s[i]);
			}
			if (n && !bits) {
				snprintf(err, errlen,
					 "unknown state '%.*s': S (interruptible sleep), D "
					 "(uninterruptible), R (runnable after a wakeup) or P "
					 "(preempted), comma-separated",
					 (int)n, s);
				return -EINVAL;
			}
		}
		*out |= bits;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!*out) {
		snprintf(err, errlen, "no state listed: S, D, R or P, comma-separated");
		return -EINVAL;
	}
	return 0;
}

const char *rsp_wait_states_str(unsigned states, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned b = RSP_WAIT_S; b <= RSP_WAIT_PREEMPTED && n + 3 < len; b <<= 1)
		if (states & b)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      rsp_wait_state_name((enum rsp_wait_state)b));
	return buf;
}
