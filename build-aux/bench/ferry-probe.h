/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the io_uring probes share: a clock, and an end for what cannot go on. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double
probe_now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static inline void
probe_die (const char *what)
{
  perror (what);
  exit (1);
}
