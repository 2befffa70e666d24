/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How many CPUs this process may run on (its affinity), for spreading loading over them. */
#ifndef RSP_MODEL_BASE_CPUS_H
#define RSP_MODEL_BASE_CPUS_H

int _rsp_usable_cpus(void);

#endif /* RSP_MODEL_BASE_CPUS_H */
