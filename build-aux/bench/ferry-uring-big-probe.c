/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Does io_uring pay for copying one big file here? Copies SOURCE to
 * DESTINATION (made new, its length reserved with fallocate, as Ferry
 * does for large files) in 1 MiB steps one of three ways, and prints
 * the wall time until the copy is durable (fdatasync):
 *
 *   cfr     copy_file_range, one step after another (Ferry's way; with
 *           DEPTH, steps of DEPTH MiB instead)
 *   rw      pread into a buffer, pwrite from it
 *   uring   DEPTH linked pairs in flight on one ring: READ_FIXED into a
 *           registered buffer, then WRITE_FIXED from it
 *
 * Usage: ferry-uring-big-probe cfr|rw|uring SOURCE DESTINATION [DEPTH] */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ferry-probe.h"

#define STEP (1024 * 1024)
#define MAX_DEPTH 64

static void
copy_cfr (int src, int dst, off_t size, size_t step)
{
  off_t in = 0, out = 0;

  while (in < size)
    {
      ssize_t n = copy_file_range (src, &in, dst, &out, step, 0);
      if (n <= 0)
        probe_die ("copy_file_range");
    }
}

static void
copy_rw (int src, int dst, off_t size)
{
  char *buf = malloc (STEP);

  for (off_t off = 0; off < size;)
    {
      ssize_t n = pread (src, buf, STEP, off);
      if (n <= 0 || pwrite (dst, buf, n, off) != n)
        probe_die ("pread/pwrite");
      off += n;
    }
  free (buf);
}

typedef struct
{
  struct io_uring ring;
  struct iovec iov[MAX_DEPTH]; /* registered */
  int src, dst;
  off_t size;
} Copy;

/* A pair for buffer @k at @off: the write runs only if the read did. */
static void
queue_pair (Copy *c, unsigned k, off_t off)
{
  unsigned len = c->size - off < STEP ? (unsigned) (c->size - off) : STEP;
  struct io_uring_sqe *read = io_uring_get_sqe (&c->ring);
  struct io_uring_sqe *write;

  io_uring_prep_read_fixed (read, c->src, c->iov[k].iov_base, len, off, k);
  read->flags |= IOSQE_IO_LINK;
  read->user_data = 0;
  write = io_uring_get_sqe (&c->ring);
  io_uring_prep_write_fixed (write, c->dst, c->iov[k].iov_base, len, off, k);
  write->user_data = 1 + k;
}

static void
copy_uring (int src, int dst, off_t size, unsigned depth)
{
  Copy c = { .src = src, .dst = dst, .size = size };
  off_t next = 0;
  unsigned in_flight = 0;

  if (io_uring_queue_init (2 * depth, &c.ring, 0) < 0)
    probe_die ("io_uring_queue_init");
  for (unsigned k = 0; k < depth; k++)
    c.iov[k] = (struct iovec){ aligned_alloc (4096, STEP), STEP };
  if (io_uring_register_buffers (&c.ring, c.iov, depth) < 0)
    probe_die ("io_uring_register_buffers");
  for (unsigned k = 0; k < depth && next < size; k++, next += STEP, in_flight++)
    queue_pair (&c, k, next);
  while (in_flight > 0)
    {
      struct io_uring_cqe *cqe;

      io_uring_submit_and_wait (&c.ring, 1);
      while (io_uring_peek_cqe (&c.ring, &cqe) == 0)
        {
          unsigned long long k = cqe->user_data;

          if (cqe->res < 0)
            {
              errno = -cqe->res;
              probe_die ("io_uring read/write");
            }
          io_uring_cqe_seen (&c.ring, cqe);
          if (k == 0)
            continue;
          in_flight--;
          if (next < size)
            {
              queue_pair (&c, (unsigned) k - 1, next);
              next += STEP;
              in_flight++;
            }
        }
    }
  io_uring_queue_exit (&c.ring);
}

int
main (int argc, char **argv)
{
  struct stat st;
  unsigned depth = argc > 4 ? (unsigned) atoi (argv[4]) : 0;
  int src, dst;
  double start;

  if (argc < 4 || depth > MAX_DEPTH)
    {
      fprintf (stderr, "Usage: %s cfr|rw|uring SOURCE DESTINATION [DEPTH]\n", argv[0]);
      return 2;
    }
  start = probe_now ();
  src = open (argv[2], O_RDONLY | O_CLOEXEC);
  dst = open (argv[3], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (src < 0 || dst < 0 || fstat (src, &st) != 0)
    probe_die ("open");
  if (fallocate (dst, 0, 0, st.st_size) != 0)
    probe_die ("fallocate");
  if (strcmp (argv[1], "cfr") == 0)
    copy_cfr (src, dst, st.st_size, depth > 0 ? (size_t) depth * STEP : STEP);
  else if (strcmp (argv[1], "rw") == 0)
    copy_rw (src, dst, st.st_size);
  else
    copy_uring (src, dst, st.st_size, depth > 0 ? depth : 8);
  if (fdatasync (dst) != 0)
    probe_die ("fdatasync");
  printf ("%s %.3f s\n", argv[1], probe_now () - start);
  return 0;
}
