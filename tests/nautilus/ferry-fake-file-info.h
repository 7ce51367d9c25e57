/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <nautilus-extension.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_FILE_INFO (ferry_fake_file_info_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeFileInfo, ferry_fake_file_info, FERRY, FAKE_FILE_INFO, GObject)

NautilusFileInfo *ferry_fake_file_info_new (GFile *location);
NautilusFileInfo *ferry_fake_file_info_new_with_target (GFile *location, GFile *activation);

G_END_DECLS
