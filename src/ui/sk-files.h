/* sk-files.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean  sk_copy_tree          (GFile    *source,
                                 GFile    *destination,
                                 GError  **error);
GFile    *sk_recovery_file_for  (GFile    *folder);

G_END_DECLS
