/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Does io_uring pay for copying trees of small files here? Copies every
 * regular file of a tree (folders made first, no metadata) with T threads
 * in one of three ways and prints the wall time until the data is durable:
 *
 *   cfr     per file: openat, openat (create), copy_file_range, close, close
 *   rw      the same with read and write through a buffer
 *   uring   per folder, linked chains on one ring per thread, many files
 *           per submit: OPENAT (direct), OPENAT (direct), READ (registered
 *           buffer), WRITE, CLOSE, CLOSE; io-wq workers capped at T
 *
 * Usage: ferry-uring-probe cfr|rw|uring THREADS SOURCE DESTINATION */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ferry-probe.h"

#define MAX_SMALL (64 * 1024)
#define BATCH 32

typedef struct
{
  char **dirs; /* relative paths, "" for the top */
  size_t n_dirs;
  atomic_size_t next;
  int src_root;
  int dst_root;
  const char *mode;
  unsigned threads;
} Probe;

static void
collect_dirs (Probe *p, int dir_fd, const char *rel, size_t *cap)
{
  DIR *dir = fdopendir (dup (dir_fd));
  struct dirent *e;

  if (p->n_dirs == *cap)
    p->dirs = realloc (p->dirs, (*cap = *cap * 2 + 16) * sizeof *p->dirs);
  p->dirs[p->n_dirs++] = strdup (rel);
  if (mkdirat (p->dst_root, *rel ? rel : ".", 0755) != 0 && errno != EEXIST)
    probe_die ("mkdirat");
  while ((e = readdir (dir)) != NULL)
    {
      char child[4096];
      int fd;
      if (e->d_type != DT_DIR || !strcmp (e->d_name, ".") || !strcmp (e->d_name, ".."))
        continue;
      snprintf (child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
      fd = openat (dir_fd, e->d_name, O_RDONLY | O_DIRECTORY);
      collect_dirs (p, fd, child, cap);
      close (fd);
    }
  closedir (dir);
}

static void
copy_plain (int src_dir, int dst_dir, const char *name, int use_cfr, char *buf)
{
  int in = openat (src_dir, name, O_RDONLY | O_NOFOLLOW);
  int out = openat (dst_dir, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
  ssize_t n;

  if (in < 0 || out < 0)
    probe_die ("openat");
  if (use_cfr)
    while ((n = copy_file_range (in, NULL, out, NULL, 1 << 24, 0)) > 0)
      ;
  else
    while ((n = read (in, buf, 1 << 20)) > 0)
      if (write (out, buf, n) != n)
        probe_die ("write");
  close (in);
  close (out);
}

typedef struct
{
  struct io_uring ring;
  char *buffers;
  int src_dir, dst_dir;
} Ring;

/* One file as a chain: both opens into fixed slots, read, write, close. */
static void
queue_file (Ring *r, unsigned slot, const char *name, unsigned size)
{
  struct io_uring_sqe *sqe;
  char *buf = r->buffers + (size_t) slot * MAX_SMALL;

  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_openat_direct (sqe, r->src_dir, name, O_RDONLY | O_NOFOLLOW, 0, slot * 2);
  sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_openat_direct (sqe, r->dst_dir, name, O_WRONLY | O_CREAT | O_EXCL, 0644, slot * 2 + 1);
  sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_read_fixed (sqe, slot * 2, buf, size, 0, 0);
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_write_fixed (sqe, slot * 2 + 1, buf, size, 0, 0);
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_close_direct (sqe, slot * 2);
  sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  sqe = io_uring_get_sqe (&r->ring);
  io_uring_prep_close_direct (sqe, slot * 2 + 1);
  sqe->user_data = 1;
}

static void
drain (Ring *r, unsigned n)
{
  struct io_uring_cqe *cqe;

  io_uring_submit_and_wait (&r->ring, n);
  for (unsigned got = 0; got < n;)
    {
      if (io_uring_wait_cqe (&r->ring, &cqe) != 0)
        probe_die ("wait_cqe");
      if (cqe->res < 0 && cqe->user_data != 1)
        {
          errno = -cqe->res;
          probe_die ("uring op");
        }
      if (cqe->user_data == 1)
        got++;
      io_uring_cqe_seen (&r->ring, cqe);
    }
}

static void *
worker (void *data)
{
  Probe *p = data;
  char *buf = malloc (1 << 20);
  Ring r = { 0 };
  int uring = !strcmp (p->mode, "uring");

  if (uring)
    {
      struct iovec iov;
      unsigned limits[2] = { p->threads, p->threads };
      if (io_uring_queue_init (BATCH * 8, &r.ring, 0) != 0)
        probe_die ("io_uring_queue_init");
      r.buffers = aligned_alloc (4096, (size_t) BATCH * MAX_SMALL);
      iov.iov_base = r.buffers;
      iov.iov_len = (size_t) BATCH * MAX_SMALL;
      if (io_uring_register_buffers (&r.ring, &iov, 1) != 0 ||
          io_uring_register_files_sparse (&r.ring, BATCH * 2) != 0)
        probe_die ("register");
      io_uring_register_iowq_max_workers (&r.ring, limits);
    }

  for (;;)
    {
      size_t i = atomic_fetch_add (&p->next, 1);
      const char *rel;
      int src_dir, dst_dir;
      DIR *dir;
      struct dirent *e;
      unsigned queued = 0;

      if (i >= p->n_dirs)
        break;
      rel = p->dirs[i];
      src_dir = openat (p->src_root, *rel ? rel : ".", O_RDONLY | O_DIRECTORY);
      dst_dir = openat (p->dst_root, *rel ? rel : ".", O_RDONLY | O_DIRECTORY);
      dir = fdopendir (dup (src_dir));
      r.src_dir = src_dir;
      r.dst_dir = dst_dir;
      while ((e = readdir (dir)) != NULL)
        {
          struct stat st;
          if (e->d_type != DT_REG)
            continue;
          if (!uring)
            {
              copy_plain (src_dir, dst_dir, e->d_name, !strcmp (p->mode, "cfr"), buf);
              continue;
            }
          if (fstatat (src_dir, e->d_name, &st, 0) != 0)
            probe_die ("fstatat");
          if (st.st_size > MAX_SMALL)
            {
              copy_plain (src_dir, dst_dir, e->d_name, 1, buf);
              continue;
            }
          queue_file (&r, queued, e->d_name, st.st_size);
          if (++queued == BATCH)
            {
              drain (&r, queued);
              queued = 0;
            }
        }
      if (queued > 0)
        drain (&r, queued);
      closedir (dir);
      close (src_dir);
      close (dst_dir);
    }
  free (buf);
  return NULL;
}

int
main (int argc, char **argv)
{
  Probe p = { 0 };
  size_t cap = 0;
  pthread_t threads[64];
  double start;

  if (argc != 5)
    {
      fprintf (stderr, "usage: %s cfr|rw|uring THREADS SOURCE DESTINATION\n", argv[0]);
      return 2;
    }
  p.mode = argv[1];
  p.threads = atoi (argv[2]);
  start = probe_now ();
  if (mkdir (argv[4], 0755) != 0)
    probe_die (argv[4]);
  p.src_root = open (argv[3], O_RDONLY | O_DIRECTORY);
  p.dst_root = open (argv[4], O_RDONLY | O_DIRECTORY);
  collect_dirs (&p, p.src_root, "", &cap);
  for (unsigned i = 0; i < p.threads; i++)
    pthread_create (&threads[i], NULL, worker, &p);
  for (unsigned i = 0; i < p.threads; i++)
    pthread_join (threads[i], NULL);
  syncfs (p.dst_root);
  printf ("%s %u threads: %.2f s\n", p.mode, p.threads, probe_now () - start);
  return 0;
}
