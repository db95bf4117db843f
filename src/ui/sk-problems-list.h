/* sk-problems-list.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "skele.h"

G_BEGIN_DECLS

#define SK_TYPE_PROBLEMS_LIST (sk_problems_list_get_type ())

G_DECLARE_FINAL_TYPE (SkProblemsList, sk_problems_list, SK, PROBLEMS_LIST, AdwBin)

GtkWidget *sk_problems_list_new          (void);
void       sk_problems_list_set_problems (SkProblemsList *self,
                                          GPtrArray      *problems);
GPtrArray *sk_problems_list_get_problems (SkProblemsList *self);

G_END_DECLS
