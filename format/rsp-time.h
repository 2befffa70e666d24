/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp's times, as perf.data's, are nanoseconds (CLOCK_MONOTONIC, unless the file says another). */
#ifndef RSP_FORMAT_TIME_H
#define RSP_FORMAT_TIME_H

#define RSP_NSEC_PER_SEC 1000000000ull

#endif /* RSP_FORMAT_TIME_H */
