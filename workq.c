// SPDX-License-Identifier: GPL-2.0
/*
 * The module's workqueue: frees what readers under RCU may still see, a
 * grace period after it was unlinked (sessions, process entries), and
 * runs the work the module must see finished before it is unloaded
 * (follow.c's module references).  Module exit flushes it.  A shared
 * service: it calls no other file of the module.
 */
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "uwprof_mod.h"

static struct workqueue_struct *uwprof_free_wq;

int uwprof_workq_module_init(void)
{
	uwprof_free_wq = alloc_workqueue("uwprof_free", 0, 0);
	return uwprof_free_wq ? 0 : -ENOMEM;
}

/* Run @fn in process context after a grace period. */
void uwprof_free_after_gp(struct rcu_work *rw, work_func_t fn)
{
	INIT_RCU_WORK(rw, fn);
	queue_rcu_work(uwprof_free_wq, rw);
}

/*
 * Wait until what was queued for freeing before now has been freed: the
 * grace periods (rcu_barrier() runs their callbacks, which queue the
 * works), then the works.  Process context, holding no lock a free takes.
 */
void uwprof_frees_flush(void)
{
	rcu_barrier();
	flush_workqueue(uwprof_free_wq);
}

/* Run @work on the module's workqueue, which module exit flushes. */
void uwprof_queue_work(struct work_struct *work)
{
	queue_work(uwprof_free_wq, work);
}

/* Module exit: everything queued for freeing has been freed. */
void uwprof_workq_module_exit(void)
{
	/* a session's free queues its entries' frees in turn */
	rcu_barrier();
	flush_workqueue(uwprof_free_wq);
	rcu_barrier();
	destroy_workqueue(uwprof_free_wq);
}
