/* sk-table-view.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-table-view"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sk-table-view.h"

/* CSV and TSV files as tables. The parser reads the whole file, quotes and
 * all, so that it can say how many rows there are, but keeps only the first
 * rows, the first columns and the beginning of each field: a file of any
 * size costs the same memory. It runs in the preview's thread. */

#define MAX_COLUMNS      200
#define MAX_FIELD        4096
#define MAX_COUNT_BYTES  (256 * 1024 * 1024)
#define CHUNK_SIZE       (64 * 1024)

struct _SkTable
{
  /* The header first, then at most max_rows rows, each a GPtrArray of
   * strings. */
  GPtrArray *rows;
  guint      max_rows;
  guint      n_columns;
  guint64    n_rows;
  gboolean   counted_all;
  gboolean  *numeric;

  /* The parser's state. */
  char       separator;
  GString   *field;
  GPtrArray *row;
  guint      n_fields;
  gboolean   in_quotes;
  gboolean   after_quote;
  gboolean   quoted;
  gboolean   field_cut;
  gboolean   row_blank;
  gboolean   pending;
  gboolean   started;
};

static gboolean
keeping (SkTable *table)
{
  return table->rows->len <= table->max_rows;
}

static void
end_field (SkTable *table)
{
  table->row_blank = table->n_fields == 0 && table->field->len == 0 &&
                     !table->field_cut && !table->quoted;

  if (keeping (table) && table->n_fields < MAX_COLUMNS)
    {
      if (table->field_cut)
        g_string_append (table->field, "…");
      g_ptr_array_add (table->row, g_utf8_make_valid (table->field->str, table->field->len));
    }

  table->n_fields++;
  g_string_truncate (table->field, 0);
  table->quoted = FALSE;
  table->field_cut = FALSE;
}

static void
end_row (SkTable *table)
{
  /* A blank line is no row; a row of one quoted empty field is. */
  if (table->n_fields != 1 || !table->row_blank)
    {
      if (table->rows->len > 0)
        table->n_rows++;

      if (keeping (table))
        {
          table->n_columns = MAX (table->n_columns, table->row->len);
          g_ptr_array_add (table->rows, g_steal_pointer (&table->row));
        }
    }

  g_clear_pointer (&table->row, g_ptr_array_unref);
  table->row = g_ptr_array_new_with_free_func (g_free);
  table->n_fields = 0;
  table->pending = FALSE;
}

static void
feed (SkTable    *table,
      const char *data,
      gsize       len)
{
  for (gsize i = 0; i < len; i++)
    {
      char c = data[i];

      table->pending = TRUE;
      if (table->in_quotes)
        {
          if (c == '"')
            {
              table->in_quotes = FALSE;
              table->after_quote = TRUE;
              continue;
            }
        }
      else if (table->after_quote && c == '"')
        {
          /* A doubled quote inside quotes is one quote. */
          table->in_quotes = TRUE;
          table->after_quote = FALSE;
        }
      else
        {
          table->after_quote = FALSE;

          if (c == '"' && table->field->len == 0 && !table->quoted)
            {
              table->in_quotes = TRUE;
              table->quoted = TRUE;
              continue;
            }
          if (c == table->separator)
            {
              end_field (table);
              continue;
            }
          if (c == '\n')
            {
              end_field (table);
              end_row (table);
              continue;
            }
          if (c == '\r')
            continue;
        }

      if (!keeping (table))
        continue;
      if (table->field->len < MAX_FIELD)
        g_string_append_c (table->field, c);
      else
        table->field_cut = TRUE;
    }
}

static char
guess_separator (const char *data,
                 gsize       len)
{
  guint commas = 0, semicolons = 0, tabs = 0;
  gboolean quoted = FALSE;

  for (gsize i = 0; i < len && (quoted || data[i] != '\n'); i++)
    {
      if (data[i] == '"')
        quoted = !quoted;
      else if (!quoted && data[i] == ',')
        commas++;
      else if (!quoted && data[i] == ';')
        semicolons++;
      else if (!quoted && data[i] == '\t')
        tabs++;
    }

  if (tabs > 0 && tabs >= commas && tabs >= semicolons)
    return '\t';
  if (semicolons > commas)
    return ';';
  return ',';
}

static SkTable *
table_new (char  separator,
           guint max_rows)
{
  SkTable *table = g_new0 (SkTable, 1);

  table->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  table->row = g_ptr_array_new_with_free_func (g_free);
  table->field = g_string_new (NULL);
  table->separator = separator;
  table->max_rows = max_rows;
  table->counted_all = TRUE;

  return table;
}

static void
feed_start (SkTable    *table,
            const char *data,
            gsize       len)
{
  if (!table->started)
    {
      table->started = TRUE;
      if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
        {
          data += 3;
          len -= 3;
        }
      if (table->separator == '\0')
        table->separator = guess_separator (data, len);
    }

  feed (table, data, len);
}

static gboolean
is_number (const char *text)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  char *end = NULL;
  gsize len = strlen (copy);

  if (len == 0 || !(g_ascii_isdigit (copy[0]) || strchr ("+-.", copy[0]) != NULL))
    return FALSE;
  if (copy[len - 1] == '%')
    copy[len - 1] = '\0';

  g_ascii_strtod (copy, &end);
  return end != copy && *end == '\0' && strpbrk (copy, "xXnN") == NULL;
}

static void
table_finish (SkTable *table)
{
  if (table->pending)
    {
      end_field (table);
      end_row (table);
    }

  table->numeric = g_new0 (gboolean, MAX (table->n_columns, 1));
  for (guint c = 0; c < table->n_columns; c++)
    {
      gboolean any = FALSE, all = TRUE;

      for (guint r = 1; r < table->rows->len && all; r++)
        {
          const char *cell = sk_table_get_cell (table, r - 1, c);

          if (cell == NULL || cell[0] == '\0')
            continue;
          any = TRUE;
          all = is_number (cell);
        }
      table->numeric[c] = any && all;
    }
}

/**
 * sk_table_parse:
 * @stream: a CSV or TSV file
 * @separator: the separator, or `'\0'` to guess it from the first line
 * @max_rows: how many rows to keep after the header
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads @stream to its end, or to 256 MiB, counting its rows. Blocks: call
 * it in a thread.
 *
 * Returns: (transfer full) (nullable): the table, or %NULL with @error set
 */
SkTable *
sk_table_parse (GInputStream  *stream,
                char           separator,
                guint          max_rows,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(SkTable) table = table_new (separator, max_rows);
  g_autofree char *buffer = g_malloc (CHUNK_SIZE);
  guint64 total = 0;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  for (;;)
    {
      gssize n_read = g_input_stream_read (stream, buffer, CHUNK_SIZE, cancellable, error);

      if (n_read < 0)
        return NULL;
      if (n_read == 0)
        break;

      feed_start (table, buffer, n_read);
      total += n_read;
      if (total >= MAX_COUNT_BYTES)
        {
          table->counted_all = FALSE;
          break;
        }
    }

  table_finish (table);
  return g_steal_pointer (&table);
}

/**
 * sk_table_parse_text:
 * @text: CSV or TSV text
 * @separator: the separator, or `'\0'` to guess it from the first line
 * @max_rows: how many rows to keep after the header
 *
 * Returns: (transfer full): the table
 */
SkTable *
sk_table_parse_text (const char *text,
                     char        separator,
                     guint       max_rows)
{
  SkTable *table = table_new (separator, max_rows);

  g_return_val_if_fail (text != NULL, NULL);

  feed_start (table, text, strlen (text));
  table_finish (table);
  return table;
}

void
sk_table_free (SkTable *table)
{
  if (table == NULL)
    return;

  g_ptr_array_unref (table->rows);
  g_clear_pointer (&table->row, g_ptr_array_unref);
  g_string_free (table->field, TRUE);
  g_free (table->numeric);
  g_free (table);
}

/**
 * sk_table_get_n_columns:
 * @table: a table
 *
 * Returns: the number of columns of the widest row kept
 */
guint
sk_table_get_n_columns (SkTable *table)
{
  return table->n_columns;
}

/**
 * sk_table_get_n_kept_rows:
 * @table: a table
 *
 * Returns: the number of rows kept after the header
 */
guint
sk_table_get_n_kept_rows (SkTable *table)
{
  return table->rows->len > 0 ? table->rows->len - 1 : 0;
}

/**
 * sk_table_get_n_rows:
 * @table: a table
 *
 * Returns: the number of rows after the header in the file, or in its
 *   first 256 MiB when sk_table_get_counted_all() is %FALSE
 */
guint64
sk_table_get_n_rows (SkTable *table)
{
  return table->n_rows;
}

gboolean
sk_table_get_counted_all (SkTable *table)
{
  return table->counted_all;
}

/**
 * sk_table_get_header:
 * @table: a table
 * @column: a column
 *
 * Returns: the heading of @column, empty when the header row is short
 */
const char *
sk_table_get_header (SkTable *table,
                     guint    column)
{
  GPtrArray *header;

  if (table->rows->len == 0)
    return "";
  header = g_ptr_array_index (table->rows, 0);
  return column < header->len ? g_ptr_array_index (header, column) : "";
}

/**
 * sk_table_get_cell:
 * @table: a table
 * @row: a row kept, counted after the header
 * @column: a column
 *
 * Returns: (nullable): the field, or %NULL when the row is short
 */
const char *
sk_table_get_cell (SkTable *table,
                   guint    row,
                   guint    column)
{
  GPtrArray *cells;

  if (row + 1 >= table->rows->len)
    return NULL;
  cells = g_ptr_array_index (table->rows, row + 1);
  return column < cells->len ? g_ptr_array_index (cells, column) : NULL;
}

/**
 * sk_table_column_is_numeric:
 * @table: a table
 * @column: a column
 *
 * Returns: whether every non-empty field of @column is a number
 */
gboolean
sk_table_column_is_numeric (SkTable *table,
                            guint    column)
{
  return table->numeric != NULL && column < table->n_columns && table->numeric[column];
}

/**
 * sk_table_describe_rows:
 * @table: a table
 *
 * Returns: (transfer full): “12 rows”, or “First 500 of 12,345 rows” when
 *   only the first are kept
 */
char *
sk_table_describe_rows (SkTable *table)
{
  g_autofree char *total = g_strdup_printf ("%'" G_GUINT64_FORMAT, table->n_rows);
  gulong plural = table->n_rows > G_MAXULONG ? 1000000 : (gulong) table->n_rows;
  guint kept = sk_table_get_n_kept_rows (table);

  if (kept == table->n_rows)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s row", "%s rows", plural), total);

  if (!table->counted_all)
    /* Translators: the rows shown of a very large file, as in “First 500 of more than 1,000,000 rows”. */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "First %u of more than %s row",
                                         "First %u of more than %s rows", plural),
                            kept, total);

  /* Translators: the rows shown of a large file, as in “First 500 of 12,345 rows”. */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "First %u of %s row",
                                       "First %u of %s rows", plural),
                          kept, total);
}

/* The widget. */

typedef struct
{
  SkTable *table;
  guint    column;
  int      width_chars;
} ColumnData;

/* Columns as wide as their longest field, within bounds, so that short
 * fields such as dates are not cut to a few letters. */
static int
column_width_chars (SkTable *table,
                    guint    column)
{
  glong width = g_utf8_strlen (sk_table_get_header (table, column), -1);
  guint n_rows = MIN (sk_table_get_n_kept_rows (table), 100);

  for (guint r = 0; r < n_rows; r++)
    {
      const char *cell = sk_table_get_cell (table, r, column);

      if (cell != NULL)
        width = MAX (width, g_utf8_strlen (cell, 200));
    }

  return CLAMP (width, 3, 24);
}

static void
setup_cell_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               ColumnData               *data)
{
  GtkWidget *label = gtk_label_new (NULL);
  gboolean numeric = sk_table_column_is_numeric (data->table, data->column);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_label_set_width_chars (GTK_LABEL (label), data->width_chars);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              ColumnData               *data)
{
  GtkWidget *label = gtk_list_item_get_child (item);
  const char *text = sk_table_get_cell (data->table, gtk_list_item_get_position (item), data->column);
  g_autofree char *line = g_strdup (text != NULL ? text : "");

  /* A field with line breaks stays on one line; the tooltip has it all. */
  g_strdelimit (line, "\r\n\t", ' ');
  gtk_label_set_text (GTK_LABEL (label), line);
  gtk_widget_set_tooltip_text (label, g_utf8_strlen (line, -1) > 40 || g_strcmp0 (line, text) != 0
                                      ? text : NULL);
}

/**
 * sk_table_view_new:
 * @table: (transfer full): a table
 *
 * Returns: (transfer floating): a column view of @table's kept rows, with
 *   numbers right-aligned; put it in a #GtkScrolledWindow
 */
GtkWidget *
sk_table_view_new (SkTable *table)
{
  g_autoptr(GtkStringList) rows = gtk_string_list_new (NULL);
  GtkNoSelection *selection;
  GtkWidget *view;
  guint n_kept;

  g_return_val_if_fail (table != NULL, NULL);

  n_kept = sk_table_get_n_kept_rows (table);
  for (guint r = 0; r < n_kept; r++)
    gtk_string_list_append (rows, "");

  selection = gtk_no_selection_new (G_LIST_MODEL (g_steal_pointer (&rows)));
  view = gtk_column_view_new (GTK_SELECTION_MODEL (selection));
  gtk_column_view_set_show_row_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_column_view_set_reorderable (GTK_COLUMN_VIEW (view), FALSE);
  gtk_widget_add_css_class (view, "data-table");
  g_object_set_data_full (G_OBJECT (view), "sk-table", table, (GDestroyNotify) sk_table_free);

  for (guint c = 0; c < sk_table_get_n_columns (table); c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;
      ColumnData *data = g_new0 (ColumnData, 1);

      data->table = table;
      data->column = c;
      data->width_chars = column_width_chars (table, c);
      g_object_set_data_full (G_OBJECT (factory), "sk-column", data, g_free);
      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell_cb), data);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell_cb), data);

      column = gtk_column_view_column_new (sk_table_get_header (table, c), factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
    }

  return view;
}
