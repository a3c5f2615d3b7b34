/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the files of the uwprof module. */
#ifndef UWPROF_MOD_H
#define UWPROF_MOD_H

int uwprof_chardev_init(void);
void uwprof_chardev_exit(void);

#endif /* UWPROF_MOD_H */
