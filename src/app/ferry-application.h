/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* How `ferry --destination=FOLDER FILE…` ends. */
typedef enum
{
  FERRY_APPLICATION_EXIT_OK = 0,      /* the transfer is queued */
  FERRY_APPLICATION_EXIT_REFUSED = 1, /* not a folder, a file missing: nothing queued or written */
  FERRY_APPLICATION_EXIT_USAGE = 2,   /* the command line itself is wrong */
} FerryApplicationExit;

#define FERRY_TYPE_APPLICATION (ferry_application_get_type ())

G_DECLARE_FINAL_TYPE (FerryApplication, ferry_application, FERRY, APPLICATION, AdwApplication)

FerryApplication *ferry_application_new (void);

G_END_DECLS
