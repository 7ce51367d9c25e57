/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry-syncfs.h"

/* How often a caller waiting for a sync looks whether the job was
 * cancelled: well inside the half second Cancel has to answer in. */
#define CANCEL_CHECK_USEC (G_USEC_PER_SEC / 100)
/* The child that syncs only calls syncfs(). */
#define CHILD_STACK_SIZE (64 * 1024)

/**
 * FerrySyncfs:
 * A syncfs() of the destination that a cancelled job does not wait for.
 * On a slow stick one sync may take most of a second, and nothing cuts
 * it short. So the call runs on a thread of its own (in a child process
 * of it, see syncfs_in_child()), holding its own descriptor of the
 * destination; the caller waits for its answer, and gives up once the
 * job is cancelled. The kernel finishes the abandoned sync; the thread
 * then lets go of what it holds, and nothing of the job's was ever in
 * its hands, so the job may end at once.
 */
struct _FerrySyncfs
{
  gatomicrefcount refs; /* the owner's and the thread's */
  int fd;
  int dup_errno; /* why there is no descriptor, if there is none */
  GThread *thread;
  GMutex lock; /* guards everything below */
  GCond cond;
  guint64 asked;    /* syncs asked for */
  guint64 answered; /* syncs that returned */
  int result;       /* what the last of them returned */
  gboolean quit;
  gboolean started;   /* the thread has its table of descriptors */
  gboolean own_table; /* ... a table of its own, where @fd is its only one */
};

static void
syncfs_unref (FerrySyncfs *self)
{
  if (!g_atomic_ref_count_dec (&self->refs))
    return;
  /* A table of its own went with the thread, and @fd with it. */
  if (self->fd >= 0 && !self->own_table)
    close (self->fd);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

/* Called with the lock: waits for a sync to make, FALSE once told to quit. */
static gboolean
wait_for_ask (FerrySyncfs *self)
{
  while (self->answered == self->asked && !self->quit)
    g_cond_wait (&self->cond, &self->lock);
  return !self->quit;
}

static int
child_main (gpointer data)
{
  return syncfs (GPOINTER_TO_INT (data)) == 0 ? 0 : errno & 0xff;
}

/* The sync runs in a child process, which nothing waits for once the
 * sync is given up: a process with a thread inside syncfs() cannot end
 * before the call returns, and ferry-copy is to exit at once after
 * Ctrl+C, while a thread waiting for a vfork child is killed with its
 * process. The child shares memory (no page tables to copy: points come
 * several times a second) and descriptors (its end closes none: a FUSE
 * daemon would write a file's records at each close). */
static int
syncfs_in_child (int fd)
{
  g_autofree char *stack = g_malloc (CHILD_STACK_SIZE);
  pid_t pid = clone (child_main, stack + CHILD_STACK_SIZE,
                     CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, GINT_TO_POINTER (fd));
  int status;

  if (pid < 0)
    return syncfs (fd) == 0 ? 0 : errno;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return errno;
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  /* The child was killed (a signal to the whole process group): its
   * sync's answer is lost, not the device. */
  return syncfs (fd) == 0 ? 0 : errno;
}

/* Gives the thread a table of descriptors of its own, holding only the
 * destination's. Its sync children share that table, so one abandoned
 * after a cancel or a kill holds none of the job's files: not their locks
 * (a run started after a kill can take over its temporary files at once)
 * nor the space of those it removed. Closing the copies here closes
 * nothing of the job's. Without this, the children hold the whole
 * process's descriptors until their sync returns. */
static gboolean
keep_only_own_descriptor (int fd)
{
  if (fd < 0 || unshare (CLONE_FILES) != 0)
    return FALSE;
  if (fd > STDERR_FILENO + 1)
    close_range (STDERR_FILENO + 1, fd - 1, 0);
  close_range (fd + 1, ~0U, 0);
  return TRUE;
}

static gpointer
syncfs_main (gpointer data)
{
  FerrySyncfs *self = data;

  gboolean own_table = keep_only_own_descriptor (self->fd);

  g_mutex_lock (&self->lock);
  self->own_table = own_table;
  self->started = TRUE;
  g_cond_broadcast (&self->cond);
  while (wait_for_ask (self))
    {
      guint64 asked = self->asked;
      int result;

      g_mutex_unlock (&self->lock);
      result = syncfs_in_child (self->fd);
      g_mutex_lock (&self->lock);
      self->result = result;
      self->answered = asked;
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->lock);
  syncfs_unref (self);
  return NULL;
}

/* A thread that syncs the filesystem holding @fd, through a descriptor
 * of its own. */
FerrySyncfs *
ferry_syncfs_new (int fd)
{
  FerrySyncfs *self = g_new0 (FerrySyncfs, 1);

  g_atomic_ref_count_init (&self->refs);
  g_atomic_ref_count_inc (&self->refs);
  self->fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  self->dup_errno = self->fd < 0 ? errno : 0;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("ferry-syncfs", syncfs_main, self);
  /* Once the thread has its own copy, the process's goes. */
  g_mutex_lock (&self->lock);
  while (!self->started)
    g_cond_wait (&self->cond, &self->lock);
  if (self->own_table)
    close (self->fd);
  g_mutex_unlock (&self->lock);
  return self;
}

/**
 * ferry_syncfs_start:
 * Asks for a syncfs() of the destination, which starts at once unless
 * one is under way (then right after it): what it covers is what was
 * written before this call. Returns the ticket to wait for with
 * ferry_syncfs_wait(); meanwhile the caller may go on working.
 */
guint64
ferry_syncfs_start (FerrySyncfs *self)
{
  guint64 ticket;

  if (self->fd < 0)
    return 0;
  g_mutex_lock (&self->lock);
  ticket = ++self->asked;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return ticket;
}

/**
 * ferry_syncfs_wait:
 * The answer of the sync @ticket asked for: its errno, or 0. ECANCELED
 * once @cancellable is cancelled, before or while it runs: then nothing
 * is known of what it would have made durable.
 */
int
ferry_syncfs_wait (FerrySyncfs *self, guint64 ticket, GCancellable *cancellable)
{
  int result = ECANCELED;

  if (self->fd < 0)
    return self->dup_errno;
  g_mutex_lock (&self->lock);
  while (self->answered < ticket && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + CANCEL_CHECK_USEC);
  if (self->answered >= ticket)
    result = self->result;
  g_mutex_unlock (&self->lock);
  return result;
}

/**
 * ferry_syncfs_run:
 * One syncfs() of the destination, from start to end (see
 * ferry_syncfs_wait()).
 */
int
ferry_syncfs_run (FerrySyncfs *self, GCancellable *cancellable)
{
  if (g_cancellable_is_cancelled (cancellable))
    return ECANCELED;
  return ferry_syncfs_wait (self, ferry_syncfs_start (self), cancellable);
}

/* The thread is joined when it has nothing to do, and else left to end
 * on its own once its sync returns. */
void
ferry_syncfs_free (FerrySyncfs *self)
{
  gboolean in_flight;

  g_mutex_lock (&self->lock);
  self->quit = TRUE;
  in_flight = self->answered < self->asked;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (in_flight)
    g_thread_unref (self->thread);
  else
    g_thread_join (self->thread);
  syncfs_unref (self);
}
