/* sk-table-view.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _SkTable SkTable;

SkTable            *sk_table_parse              (GInputStream  *stream,
                                                 char           separator,
                                                 guint          max_rows,
                                                 GCancellable  *cancellable,
                                                 GError       **error);
SkTable            *sk_table_parse_text         (const char    *text,
                                                 char           separator,
                                                 guint          max_rows);
void                sk_table_free               (SkTable       *table);
guint               sk_table_get_n_columns      (SkTable       *table);
guint               sk_table_get_n_kept_rows    (SkTable       *table);
guint64             sk_table_get_n_rows         (SkTable       *table);
gboolean            sk_table_get_counted_all    (SkTable       *table);
const char         *sk_table_get_header         (SkTable       *table,
                                                 guint          column);
const char         *sk_table_get_cell           (SkTable       *table,
                                                 guint          row,
                                                 guint          column);
gboolean            sk_table_column_is_numeric  (SkTable       *table,
                                                 guint          column);
char               *sk_table_describe_rows      (SkTable       *table);

GtkWidget          *sk_table_view_new           (SkTable       *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkTable, sk_table_free)

G_END_DECLS
