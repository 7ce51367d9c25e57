#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The benchmark trees of Ferry's BENCHMARKS.md, made with a fixed seed so
every run copies the same bytes. A tree is made once and reused while its
marker says it is complete and of the same recipe.

    build-aux/bench/ferry_bench_trees.py BASE TREE...   makes trees under BASE
    build-aux/bench/ferry_bench_trees.py --plan everyday  prints its files and total

Also the syncfs() that the fast-disk benchmarks time every copy against
(sync_filesystem)."""

import ctypes
import math
import os
import random
import sys

RECIPE_VERSION = "1"
MB = 1_000_000


LIBC = ctypes.CDLL(None, use_errno=True)


def sync_filesystem(path):
    """syncfs() of the filesystem `path` (or its folder) is on."""
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if LIBC.syncfs(fd) != 0:
            raise OSError(ctypes.get_errno(), f"syncfs of {folder} failed")
    finally:
        os.close(fd)


def write_random(path, size, rnd):
    with open(path, "wb") as f:
        remaining = size
        while remaining > 0:
            n = min(remaining, 1 << 20)
            f.write(rnd.randbytes(n))
            remaining -= n


def branching(root, rnd, files, subdirs, size, depth):
    """broad and fat: every folder holds `files` files; folders above the
    last level also hold `subdirs` folders."""
    os.makedirs(root, exist_ok=True)
    for i in range(files):
        write_random(os.path.join(root, f"file-{i:02d}.bin"), size, rnd)
    if depth > 0:
        for d in range(subdirs):
            branching(os.path.join(root, f"dir-{d:02d}"), rnd, files, subdirs, size, depth - 1)


def make_broad(root, rnd):
    branching(root, rnd, 7, 15, 300_000, 2)


def make_fat(root, rnd):
    branching(root, rnd, 3, 35, 200_000, 2)


def make_deep(root, rnd):
    path = root
    for level in range(7):
        os.makedirs(path, exist_ok=True)
        write_random(os.path.join(path, f"level-{level}.bin"), 20_000_000, rnd)
        path = os.path.join(path, "deeper")


def make_src(root, rnd):
    """60,000 files, 20 a folder, three levels of folders, sizes spread
    log-uniformly from 64 B to 64 KiB, like a source tree."""
    n = 0
    for a in range(15):
        for b in range(20):
            folder = os.path.join(root, f"module-{a:02d}", f"part-{b:02d}")
            for c in range(10):
                leaf = os.path.join(folder, f"unit-{c}")
                os.makedirs(leaf, exist_ok=True)
                for i in range(20):
                    size = int(2 ** rnd.uniform(6, 16))
                    write_random(os.path.join(leaf, f"source-{i:02d}.c"), size, rnd)
                    n += 1
    assert n == 60_000


def make_flat(root, rnd):
    os.makedirs(root, exist_ok=True)
    for i in range(10_000):
        write_random(os.path.join(root, f"IMG_{i:05d}.JPG"), 4096, rnd)


def make_big(root, rnd):
    os.makedirs(root, exist_ok=True)
    for i in range(2):
        write_random(os.path.join(root, f"disk-{i}.img"), 1 << 30, rnd)


def log_uniform(rnd, low, high):
    """Sizes spread evenly over orders of magnitude, as real files are."""
    return int(math.exp(rnd.uniform(math.log(low), math.log(high))))


def everyday_plan(rnd):
    """(path, size) of the everyday folder: what a person copies to a stick.
    About 3,000 files and 160 MB: two videos at the low end of 50-200 MB
    (more would outweigh everything else), photos of 1-8 MB, documents of
    20-500 KB, and many notes and source files of 100 B-16 KB in nested
    folders. Names as people write them (spaces, accents), valid on FAT."""
    plan = [(f"Videos/VID_2024{m:02d}{d:02d}.mp4", rnd.randint(50 * MB, 53 * MB))
            for m, d in ((7, 14), (12, 24))]
    for album, count in (("2023 Christmas", 3), ("2024 Summer/Beach", 3), ("2024 Summer/Mountains", 2)):
        plan += [(f"Pictures/{album}/IMG_{rnd.randint(1000, 9999)}_{i}.JPG", rnd.randint(1 * MB, 8 * MB))
                 for i in range(count)]
    kinds = ("pdf", "docx", "odt", "xlsx")
    for folder, count in (("Work/Reports", 25), ("Work/Invoices 2024", 20), ("School", 15),
                          ("Taxes", 10), ("Résumé", 3)):
        plan += [(f"Documents/{folder}/document {i:02d}.{kinds[i % len(kinds)]}",
                  log_uniform(rnd, 20_000, 500_000)) for i in range(count)]
    plan += [(f"Notes/{year}/note-{i:03d}.{'md' if i % 3 else 'txt'}", log_uniform(rnd, 100, 16_000))
             for year in (2022, 2023, 2024) for i in range(100)]
    for module in range(24):
        for part in range(6):
            folder = f"Projects/ferry-fork/src/module-{module:02d}/part-{part}"
            plan += [(f"{folder}/unit-{i:02d}.{'h' if i % 4 == 0 else 'c'}", log_uniform(rnd, 100, 16_000))
                     for i in range(18)]
    return plan


def make_everyday(root, rnd):
    for path, size in everyday_plan(rnd):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        write_random(full, size, rnd)


def make_million(root, rnd):
    for d in range(1000):
        folder = os.path.join(root, f"d{d:03d}")
        os.makedirs(folder, exist_ok=True)
        for f in range(1000):
            open(os.path.join(folder, f"e{f:03d}"), "w").close()


TREES = {
    "broad": make_broad,
    "fat": make_fat,
    "deep": make_deep,
    "src": make_src,
    "flat": make_flat,
    "big": make_big,
    "million": make_million,
    "everyday": make_everyday,
}


def ensure_tree(base, name):
    """Returns the path of tree `name` under `base`, making it if needed."""
    root = os.path.join(base, name)
    marker = os.path.join(base, f".{name}.done")
    if os.path.exists(marker) and open(marker).read() == RECIPE_VERSION:
        return root
    if os.path.exists(root):
        os.system(f"rm -rf '{root}'")
    print(f"making the {name} tree in {root}", file=sys.stderr, flush=True)
    TREES[name](root, random.Random(f"ferry-{name}"))
    with open(marker, "w") as f:
        f.write(RECIPE_VERSION)
    return root


if __name__ == "__main__":
    if sys.argv[1:] == ["--plan", "everyday"]:
        plan = everyday_plan(random.Random("ferry-everyday"))
        for path, size in plan:
            print(f"{size:>10}  {path}")
        print(f"{len(plan)} files, {sum(size for _, size in plan) / MB:.1f} MB")
        sys.exit(0)
    base = sys.argv[1]
    for tree in sys.argv[2:]:
        print(ensure_tree(base, tree))
