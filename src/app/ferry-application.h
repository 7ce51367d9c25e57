/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FERRY_TYPE_APPLICATION (ferry_application_get_type ())

G_DECLARE_FINAL_TYPE (FerryApplication, ferry_application, FERRY, APPLICATION, AdwApplication)

FerryApplication *ferry_application_new (void);

G_END_DECLS
