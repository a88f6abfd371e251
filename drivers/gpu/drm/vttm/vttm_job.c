// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vttm's jobs: fences that a timer signals after the job's simulated time.
 */

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>

#include "vttm_drv.h"

/**
 * struct vttm_job_fence - the fence of a job, signalled by a timer
 * @base: The fence.
 * @timer: Signals the fence when the job's simulated time is up.
 * @link: In &vttm_device.jobs, from the start of the job until the fence
 *	has signalled and its timer is known to be done.
 */
struct vttm_job_fence {
	struct dma_fence base;
	struct hrtimer timer;
	struct list_head link;
};

/**
 * to_job_fence - the job fence of a fence
 * @fence: A fence from vttm_job_fence_create().
 *
 * Return: The &vttm_job_fence embedding @fence.
 */
static struct vttm_job_fence *to_job_fence(struct dma_fence *fence)
{
	return container_of(fence, struct vttm_job_fence, base);
}

/**
 * vttm_fence_driver_name - &dma_fence_ops.get_driver_name
 * @fence: A job fence.
 *
 * Return: "vttm".
 */
static const char *vttm_fence_driver_name(struct dma_fence *fence)
{
	return "vttm";
}

/**
 * vttm_fence_timeline_name - &dma_fence_ops.get_timeline_name
 * @fence: A job fence.
 *
 * Return: "job": every job is a timeline of its own.
 */
static const char *vttm_fence_timeline_name(struct dma_fence *fence)
{
	return "job";
}

static const struct dma_fence_ops vttm_fence_ops = {
	.get_driver_name = vttm_fence_driver_name,
	.get_timeline_name = vttm_fence_timeline_name,
};

/**
 * vttm_job_done - end a job when its simulated time is up
 * @timer: The timer of a &vttm_job_fence.
 *
 * Signals the job's fence; the device's list of jobs keeps the fence alive
 * until this has returned.
 *
 * Return: %HRTIMER_NORESTART.
 */
static enum hrtimer_restart vttm_job_done(struct hrtimer *timer)
{
	struct vttm_job_fence *f = container_of(timer, typeof(*f), timer);

	dma_fence_signal(&f->base);
	return HRTIMER_NORESTART;
}

/**
 * vttm_jobs_put - drop the device's references to fences of jobs
 * @jobs: The fences, taken off the device's list of jobs.
 *
 * Cancels each fence's timer first: hrtimer_cancel() returns only once a
 * running callback has returned, so that no fence is freed under its
 * callback. A timer that had not fired yet ends its job as cancelled, with
 * -ECANCELED.
 */
static void vttm_jobs_put(struct list_head *jobs)
{
	struct vttm_job_fence *f, *next;

	list_for_each_entry_safe(f, next, jobs, link) {
		list_del(&f->link);
		if (hrtimer_cancel(&f->timer)) {
			dma_fence_set_error(&f->base, -ECANCELED);
			dma_fence_signal(&f->base);
		}
		dma_fence_put(&f->base);
	}
}

/**
 * vttm_jobs_init - set up the device's list of jobs
 * @vdev: The device.
 */
void vttm_jobs_init(struct vttm_device *vdev)
{
	spin_lock_init(&vdev->jobs_lock);
	INIT_LIST_HEAD(&vdev->jobs);
}

/**
 * vttm_jobs_fini - end every job of the device
 * @vdev: The device, which has no clients left.
 *
 * Cancels the timers of the jobs still running and signals their fences
 * with -ECANCELED, so that buffers released with jobs in flight can be
 * destroyed, and no timer outlives the module's code.
 */
void vttm_jobs_fini(struct vttm_device *vdev)
{
	LIST_HEAD(jobs);

	spin_lock(&vdev->jobs_lock);
	list_splice_init(&vdev->jobs, &jobs);
	spin_unlock(&vdev->jobs_lock);
	vttm_jobs_put(&jobs);
}

/**
 * vttm_job_fence_create - create the fence of a job about to be submitted
 *
 * Return: The fence, or NULL if out of memory.
 */
struct dma_fence *vttm_job_fence_create(void)
{
	struct vttm_job_fence *f;

	f = kzalloc_obj(*f);
	if (!f)
		return NULL;

	/* Jobs end in no particular order: each is its own timeline. */
	dma_fence_init(&f->base, &vttm_fence_ops, NULL,
		       dma_fence_context_alloc(1), 1);
	hrtimer_setup(&f->timer, vttm_job_done, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	INIT_LIST_HEAD(&f->link);
	return &f->base;
}

/**
 * vttm_job_fence_start - start a job's simulated run
 * @vdev: The device.
 * @fence: The fence from vttm_job_fence_create().
 * @duration_ns: When the fence signals.
 *
 * The device's list of jobs takes its own reference to @fence, which it
 * keeps until the fence has signalled and its timer is done. Starting a
 * job drops those of the jobs that have ended.
 */
void vttm_job_fence_start(struct vttm_device *vdev, struct dma_fence *fence,
			  u64 duration_ns)
{
	struct vttm_job_fence *f = to_job_fence(fence), *old, *next;
	LIST_HEAD(ended);

	dma_fence_get(fence);
	spin_lock(&vdev->jobs_lock);
	list_for_each_entry_safe(old, next, &vdev->jobs, link)
		if (dma_fence_is_signaled(&old->base))
			list_move(&old->link, &ended);
	list_add_tail(&f->link, &vdev->jobs);
	hrtimer_start(&f->timer, ns_to_ktime(duration_ns), HRTIMER_MODE_REL);
	spin_unlock(&vdev->jobs_lock);

	vttm_jobs_put(&ended);
}
