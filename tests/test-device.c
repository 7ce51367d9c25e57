/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Knowing the device: each kind a person plugs in (or has inside) is
 * classified, named as a person would name it, and given the strategy its
 * class implies. udev sees the devices described in tests/devices/, made
 * up by umockdev-run; a test run without it skips those cases. umockdev
 * links only devices below a "block" folder into /sys/dev/block, so the
 * NVMe disk sits in nvme0/block/ there (in sysfs it is nvme0/nvme0n1).
 * Each is also fast or slow by its class, or measured while copying. */
#include "config.h"

#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ferry-block-facts.h"
#include "ferry-test-util.h"

typedef struct
{
  const char *path; /* the test's path */
  unsigned int major, minor;
  const char *fs_type;
  const char *fs_source;
  FerryDeviceBus bus;
  FerryDeviceSpeed speed;
  gboolean measured; /* fast by class, but measured while copying */
  gboolean removable;
  gboolean rotational;
  const char *display_name;
  const char *label;
  const char *block_name;
} Expected;

/* Sizes read as g_format_size() writes them, with a no-break space. */
static const Expected devices[] = {
  { "/device/usb2-stick", 8, 17, "vfat", "/dev/sdb1", FERRY_DEVICE_BUS_USB, FERRY_DEVICE_SPEED_SLOW, FALSE,
    TRUE, TRUE,
    "SanDisk Cruzer Blade (16.0\xc2\xa0"
    "GB)",
    "PHOTOS", "sdb1" },
  { "/device/usb3-ssd", 8, 33, "exfat", "/dev/sdc1", FERRY_DEVICE_BUS_USB, FERRY_DEVICE_SPEED_SLOW, FALSE,
    FALSE, FALSE,
    "Samsung PSSD T7 (500.1\xc2\xa0"
    "GB)",
    "T7", "sdc1" },
  { "/device/usb-hdd", 8, 49, "ext4", "/dev/sdd1", FERRY_DEVICE_BUS_USB, FERRY_DEVICE_SPEED_SLOW, FALSE,
    FALSE, TRUE,
    "WD Elements 25A2 (2.0\xc2\xa0"
    "TB)",
    "BACKUP", "sdd1" },
  { "/device/sd-card", 179, 1, "exfat", "/dev/mmcblk0p1", FERRY_DEVICE_BUS_MMC,
    FERRY_DEVICE_SPEED_SLOW, FALSE, FALSE, FALSE,
    "SD card SD64G (63.9\xc2\xa0"
    "GB)",
    "CAMERA", "mmcblk0p1" },
  { "/device/luks-on-usb-stick", 253, 0, "ext4", "/dev/mapper/luks-7c1e", FERRY_DEVICE_BUS_USB,
    FERRY_DEVICE_SPEED_SLOW, FALSE, TRUE, TRUE,
    "Kingston DataTraveler 3.0 (30.9\xc2\xa0"
    "GB)",
    "SECRET", "dm-0" },
  { "/device/nvme", 259, 2, "ext4", "/dev/nvme0n1p2", FERRY_DEVICE_BUS_NVME,
    FERRY_DEVICE_SPEED_FAST, FALSE, FALSE, FALSE,
    "Samsung SSD 980 PRO 1TB (1.0\xc2\xa0"
    "TB)",
    NULL, "nvme0n1p2" },
  { "/device/sata-ssd", 8, 2, "ext4", "/dev/sda2", FERRY_DEVICE_BUS_ATA, FERRY_DEVICE_SPEED_FAST, FALSE,
    FALSE, FALSE,
    "CT500MX500SSD1 (500.1\xc2\xa0"
    "GB)",
    "root", "sda2" },
  /* A loop device whose file (/var/tmp/disk.img) is not there to be
   * judged: measured. One on a file in memory is trusted
   * (/slow-device/loop-judged-by-its-file). */
  { "/device/loop", 7, 0, "ext4", "/dev/loop0", FERRY_DEVICE_BUS_VIRTUAL, FERRY_DEVICE_SPEED_FAST, TRUE,
    FALSE, TRUE,
    "Virtual disk (536.9\xc2\xa0"
    "MB)",
    "IMAGE", "loop0" },
  /* A virtual machine's own disk: fast by its class, never measured. */
  { "/device/virtio", 254, 0, "ext4", "/dev/vda", FERRY_DEVICE_BUS_VIRTUAL, FERRY_DEVICE_SPEED_FAST,
    FALSE, FALSE, TRUE,
    "Virtual disk (274.9\xc2\xa0"
    "GB)",
    NULL, "vda" },
  /* A camera's card of 2 GB, FAT16 by the SD standard, its lock switch on. */
  { "/device/sd-card-fat16", 179, 9, "vfat", "/dev/mmcblk1p1", FERRY_DEVICE_BUS_MMC,
    FERRY_DEVICE_SPEED_SLOW, FALSE, FALSE, FALSE,
    "SD card SD02G (2.0\xc2\xa0"
    "GB)",
    "NIKON", "mmcblk1p1" },
};

static gboolean
fake_devices_present (void)
{
  if (g_getenv ("UMOCKDEV_DIR") != NULL)
    return TRUE;
  g_test_skip ("needs the fake devices of umockdev-run (meson runs this test inside it)");
  return FALSE;
}

static void
test_block_device (gconstpointer data)
{
  const Expected *e = data;
  g_autoptr (FerryDevice) device = NULL;

  if (!fake_devices_present ())
    return;
  device = ferry_device_new_for_devnum (makedev (e->major, e->minor), e->fs_type, e->fs_source);
  g_assert_cmpstr (ferry_device_bus_to_string (ferry_device_get_bus (device)), ==,
                   ferry_device_bus_to_string (e->bus));
  g_assert_cmpint (ferry_device_get_speed (device), ==, e->speed);
  g_assert_cmpint (ferry_device_get_speed_measured (device), ==, e->measured);
  g_assert_cmpint (ferry_device_get_removable (device), ==, e->removable);
  g_assert_cmpint (ferry_device_get_rotational (device), ==, e->rotational);
  g_assert_cmpstr (ferry_device_get_display_name (device), ==, e->display_name);
  g_assert_cmpstr (ferry_device_get_label (device), ==, e->label);
  g_assert_cmpstr (ferry_device_get_block_name (device), ==, e->block_name);
  g_assert_cmpstr (ferry_device_get_fs_type (device), ==, e->fs_type);
}

static void
test_network (void)
{
  const struct
  {
    const char *type, *source;
  } shares[] = {
    { "nfs4", "nas.local:/export/photos" },
    { "cifs", "//nas.local/photos" },
    { "fuse.sshfs", "me@server:/home/me" },
    { "fuse.gvfsd-fuse", "gvfsd-fuse" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
    {
      g_autoptr (FerryDevice) device
          = ferry_device_new_for_devnum (makedev (0, 60 + i), shares[i].type, shares[i].source);

      g_assert_cmpint (ferry_device_get_bus (device), ==, FERRY_DEVICE_BUS_NETWORK);
      g_assert_cmpstr (ferry_device_get_class_name (device), ==, "network");
      g_assert_cmpint (ferry_device_get_speed (device), ==, FERRY_DEVICE_SPEED_SLOW);
      g_assert_cmpstr (ferry_device_get_name (device), ==, shares[i].source);
    }
}

/* A filesystem with no device behind it (tmpfs) is unknown and fast. */
static void
test_no_device (void)
{
  g_autoptr (FerryDevice) device = ferry_device_new_for_devnum (makedev (0, 99), "tmpfs", "tmpfs");

  g_assert_cmpint (ferry_device_get_bus (device), ==, FERRY_DEVICE_BUS_UNKNOWN);
  g_assert_cmpint (ferry_device_get_speed (device), ==, FERRY_DEVICE_SPEED_FAST);
  g_assert_false (ferry_device_get_speed_measured (device));
  g_assert_cmpstr (ferry_device_get_display_name (device), ==, "Disk");
  g_assert_null (ferry_device_get_block_name (device));
}

/* From an open folder: the mount table gives the filesystem type. */
static void
test_for_fd (void)
{
  g_autofree char *scratch = ferry_test_scratch_new ("device");
  int fd = open (scratch, O_RDONLY | O_DIRECTORY);
  g_autoptr (FerryDevice) device = NULL;

  g_assert_cmpint (fd, >=, 0);
  device = ferry_device_new_for_fd (fd);
  close (fd);
  g_assert_nonnull (ferry_device_get_fs_type (device));
  g_assert_nonnull (ferry_device_get_display_name (device));
  ferry_test_remove_tree (scratch);
}

/* A person who may not read the device (no root, not in "disk") is told
 * by udev what its own probe found: that the card is FAT16, whose top
 * folder holds 512 entries (the stick-rules suite refuses a copy past
 * them), and not the FAT32 stick, whose top folder grows. */
static void
test_fat16_top_folder (void)
{
  g_auto (FerryBlockFacts) card = { 0 };
  g_auto (FerryBlockFacts) stick = { 0 };

  if (!fake_devices_present ())
    return;
  g_assert_true (ferry_block_facts_read (&card, makedev (179, 9), "/dev/mmcblk1p1"));
  g_assert_cmpstr (card.type, ==, "vfat");
  g_assert_cmpstr (card.label, ==, "NIKON");
  g_assert_cmpuint (card.fat_root_entries, ==, 512);
  g_assert_true (ferry_block_facts_read (&stick, makedev (8, 17), "/dev/sdb1"));
  g_assert_cmpstr (stick.type, ==, "vfat");
  g_assert_cmpuint (stick.fat_root_entries, ==, 0);
}

/* A card whose lock switch is on: its device refuses writes (sysfs
 * "ro"), so a copy to it is refused saying so; the stick is not. */
static void
test_write_protected (void)
{
  if (!fake_devices_present ())
    return;
  g_assert_true (ferry_block_is_write_protected (makedev (179, 9), NULL));
  g_assert_false (ferry_block_is_write_protected (makedev (8, 17), NULL));
  g_assert_false (ferry_block_is_write_protected (makedev (0, 99), "tmpfs"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    g_test_add_data_func (devices[i].path, &devices[i], test_block_device);
  g_test_add_func ("/device/network", test_network);
  g_test_add_func ("/device/no-device", test_no_device);
  g_test_add_func ("/device/for-fd", test_for_fd);
  g_test_add_func ("/device/fat16-top-folder", test_fat16_top_folder);
  g_test_add_func ("/device/write-protected", test_write_protected);
  return g_test_run ();
}
