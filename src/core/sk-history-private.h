/* sk-history-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-history.h"

G_BEGIN_DECLS

#define SK_HISTORY_MAX_STEPS 500
#define SK_HISTORY_MERGE_WINDOW_US (G_USEC_PER_SEC)

void _sk_history_set_merge_window_us (SkHistory *self,
                                      gint64     window_us);

G_END_DECLS
