/* sk-export-graphviz.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-export"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-graphviz-private.h"

/* A workflow as Graphviz DOT, drawn as the canvas draws it in its light
 * colours (src/ui/sk-canvas-paint.c): a white rounded box per step with a
 * stripe in its state's colour, its name in bold, its state below, a badge
 * for an approval gate, a for-each or a sub-workflow step, a green ring
 * around the steps marked to run and an orange outline around a gate that
 * waits; an arrow from each prior to the step, labelled with its condition.
 *
 * The steps are laid out by dot from top to bottom rather than pinned where
 * they stand on the canvas: the exported boxes are as large as their names
 * need, not the canvas's fixed size, so pinned ones may overlap, and dot
 * also routes the arrows around the boxes and places the conditions where
 * they cover nothing. It is the layout that "Arrange" gives on the canvas.
 *
 * All text that comes from the workflow is in HTML-like labels, whose only
 * escapes are XML's; quoted DOT strings carry only the graph's and the
 * steps' identifiers. */

#define FONT "sans-serif"
#define TEXT_COLOR "#241f31"
#define BOX_COLOR "#ffffff"
#define BORDER_COLOR "#c0bfbc"
#define EDGE_COLOR "#77767b"
#define PILL_BORDER_COLOR "#9a9996"
#define BACKGROUND_COLOR "#fafafa"
#define RUN_COLOR "#2ec27e"
#define GATE_COLOR "#ff7800"
#define RING_WIDTH 3
#define RING_GAP 3
#define STRIPE_WIDTH 6
#define LABEL_PAD 10
#define LABEL_PAD_END 8
/* The canvas's box is 168 × 60 points; the exported one is at least as
 * large and grows with the name. */
#define TEXT_MIN_WIDTH (168 - STRIPE_WIDTH - LABEL_PAD - LABEL_PAD_END)
/* A name is wrapped at about the width of the canvas's box. */
#define NAME_LINE_CHARS 24
/* More than a character of the badge's small bold text takes, in points. */
#define BADGE_CHAR_WIDTH 6


/* Whether @c may stand in XML 1.0 text, which Graphviz parses HTML-like
 * labels as. */
static gboolean
xml_char (gunichar c)
{
  return c == '\t' || (c >= 0x20 && c < 0xd800) ||
         (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
}

/* Appends @text to an HTML-like label, escaped, with each character that
 * XML forbids (controls, line breaks included) as a space. */
static void
append_html (GString    *label,
             const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '&':
          g_string_append (label, "&amp;");
          break;
        case '<':
          g_string_append (label, "&lt;");
          break;
        case '>':
          g_string_append (label, "&gt;");
          break;
        case '"':
          g_string_append (label, "&quot;");
          break;
        case '\'':
          g_string_append (label, "&#39;");
          break;
        default:
          if (c == 0x7f || !xml_char (c) || c == '\t')
            g_string_append_c (label, ' ');
          else
            g_string_append_len (label, p, g_utf8_next_char (p) - p);
        }
    }
}

/* Appends @text as a quoted DOT string. The DOT language escapes only the
 * double quote; a backslash is doubled so that none can escape the closing
 * quote, and Graphviz reads "\\" as one backslash where it reads escapes. */
static void
append_quoted (GString    *dot,
               const char *text)
{
  g_string_append_c (dot, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (dot, '\\');
      if (*p == '\n')
        g_string_append (dot, "\\n");
      else if ((guchar) *p < 0x20)
        g_string_append_c (dot, ' ');
      else
        g_string_append_c (dot, *p);
    }
  g_string_append_c (dot, '"');
}

/* @text on one line, with every run of white space or control characters
 * as one space, and valid UTF-8. */
static char *
one_line (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);
  GString *line = g_string_new (NULL);
  gboolean space = FALSE;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || g_unichar_iscntrl (c))
        {
          space = TRUE;
          continue;
        }
      if (space && line->len > 0)
        g_string_append_c (line, ' ');
      space = FALSE;
      g_string_append_len (line, p, g_utf8_next_char (p) - p);
    }

  return g_string_free (line, FALSE);
}

/* Splits @word into pieces of at most NAME_LINE_CHARS characters. */
static void
append_long_word (GPtrArray  *lines,
                  GString    *line,
                  const char *word)
{
  const char *p = word;

  while (g_utf8_strlen (p, -1) > NAME_LINE_CHARS)
    {
      const char *end = g_utf8_offset_to_pointer (p, NAME_LINE_CHARS);

      g_ptr_array_add (lines, g_strndup (p, end - p));
      p = end;
    }
  g_string_assign (line, p);
}

/* The name on lines of about NAME_LINE_CHARS characters, broken between
 * words where it can be and where the name has line breaks. Unlike the
 * canvas, the export keeps the whole name. */
static GPtrArray *
name_lines (const char *name)
{
  g_autofree char *valid = g_utf8_make_valid (name != NULL ? name : "", -1);
  g_auto(GStrv) paragraphs = g_strsplit (valid, "\n", -1);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; paragraphs[i] != NULL; i++)
    {
      g_autofree char *paragraph = one_line (paragraphs[i]);
      g_auto(GStrv) words = g_strsplit (paragraph, " ", -1);
      g_autoptr(GString) line = g_string_new (NULL);

      if (*paragraph == '\0')
        continue;

      for (guint j = 0; words[j] != NULL; j++)
        {
          glong length = g_utf8_strlen (line->str, -1);
          glong word_length = g_utf8_strlen (words[j], -1);

          if (line->len > 0 && length + 1 + word_length <= NAME_LINE_CHARS)
            {
              g_string_append_c (line, ' ');
              g_string_append (line, words[j]);
              continue;
            }
          if (line->len > 0)
            g_ptr_array_add (lines, g_strdup (line->str));
          append_long_word (lines, line, words[j]);
        }
      if (line->len > 0)
        g_ptr_array_add (lines, g_strdup (line->str));
    }

  return lines;
}

/* The badge's text, as the canvas writes it (control_layout() in
 * sk-canvas-paint.c), or %NULL for a plain step. */
static char *
badge_text (SkNode *node)
{
  const char *names[4] = { NULL, };
  guint n = 0;

  if (sk_node_get_approval (node))
    names[n++] = C_("kind of step", "Approval");
  if (sk_node_get_foreach (node, NULL, NULL))
    names[n++] = C_("kind of step", "For each");
  if (sk_node_get_workflow (node) != NULL)
    names[n++] = C_("kind of step", "Workflow");
  if (n == 0)
    return NULL;

  /* Translators: between the kinds of a step on its badge, as in
   * "Approval · For each" */
  return g_strjoinv (_(" · "), (char **) names);
}

/* A pill with a thin border, as the canvas draws control flow. */
static void
append_pill (GString    *label,
             const char *inner)
{
  g_string_append_printf (label,
                          "<TABLE BORDER=\"1\" STYLE=\"rounded\" COLOR=\"%s\" BGCOLOR=\"%s\" "
                          "CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\">"
                          "<TR><TD>%s</TD></TR></TABLE>",
                          PILL_BORDER_COLOR, BOX_COLOR, inner);
}

static void
append_node (GString    *dot,
             SkNode     *node,
             const char *dot_id)
{
  SkNodeState state = sk_node_get_state (node);
  gboolean waiting = state == SK_NODE_STATE_AWAITING_APPROVAL;
  g_autoptr(GPtrArray) lines = name_lines (sk_node_get_name (node));
  g_autofree char *badge = badge_text (node);
  g_autoptr(GString) label = g_string_new (NULL);
  guint rows = badge != NULL ? 3 : 2;

  /* The run mark is a ring around the box; the others have as much room
   * around them, so that marking steps moves nothing. */
  if (sk_node_get_run (node))
    g_string_append_printf (label,
                            "<TABLE BORDER=\"%d\" STYLE=\"rounded\" COLOR=\"%s\" CELLBORDER=\"0\" "
                            "CELLSPACING=\"0\" CELLPADDING=\"%d\"><TR><TD>",
                            RING_WIDTH, RUN_COLOR, RING_GAP);
  else
    g_string_append_printf (label,
                            "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" "
                            "CELLPADDING=\"%d\"><TR><TD>",
                            RING_WIDTH + RING_GAP);

  /* A gate that waits is outlined in orange, as on the canvas. */
  g_string_append_printf (label,
                          "<TABLE BORDER=\"%d\" STYLE=\"rounded\" COLOR=\"%s\" BGCOLOR=\"%s\" "
                          "CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\">",
                          waiting ? 3 : 1, waiting ? GATE_COLOR : BORDER_COLOR, BOX_COLOR);
  g_string_append_printf (label,
                          "<TR><TD ROWSPAN=\"%u\" WIDTH=\"%d\" BGCOLOR=\"%s\"></TD>"
                          "<TD ROWSPAN=\"%u\" WIDTH=\"%d\"></TD>",
                          rows, STRIPE_WIDTH, sk_node_state_color (state), rows, LABEL_PAD);

  g_string_append_printf (label,
                          "<TD ALIGN=\"LEFT\" BALIGN=\"LEFT\" WIDTH=\"%d\" HEIGHT=\"24\" "
                          "VALIGN=\"BOTTOM\">",
                          TEXT_MIN_WIDTH);
  /* Graphviz refuses an empty <B></B>. */
  if (lines->len > 0)
    g_string_append (label, "<B>");
  for (guint i = 0; i < lines->len; i++)
    {
      if (i > 0)
        g_string_append (label, "<BR/>");
      append_html (label, g_ptr_array_index (lines, i));
    }
  if (lines->len > 0)
    g_string_append (label, "</B>");
  g_string_append_printf (label, "</TD><TD ROWSPAN=\"%u\" WIDTH=\"%d\"></TD></TR>",
                          rows, LABEL_PAD_END);

  g_string_append_printf (label,
                          "<TR><TD ALIGN=\"LEFT\" HEIGHT=\"20\" VALIGN=\"TOP\">"
                          "<FONT POINT-SIZE=\"9\" COLOR=\"%sb3\">",
                          TEXT_COLOR);
  append_html (label, sk_node_state_label (state));
  g_string_append (label, "</FONT></TD></TR>");

  if (badge != NULL)
    {
      g_autoptr(GString) inner = g_string_new ("<FONT POINT-SIZE=\"8\"><B>");

      append_html (inner, badge);
      g_string_append (inner, "</B></FONT>");
      /* Graphviz stretches a table to the width of its cell, so that the
       * badge would span the box; a cell after it, as wide as the room the
       * badge's words leave at a generous guess, keeps it to their width. */
      g_string_append (label,
                       "<TR><TD ALIGN=\"LEFT\" CELLPADDING=\"3\"><TABLE BORDER=\"0\" CELLBORDER=\"0\" "
                       "CELLSPACING=\"0\" CELLPADDING=\"0\"><TR><TD>");
      append_pill (label, inner->str);
      g_string_append_printf (label, "</TD><TD WIDTH=\"%ld\"></TD></TR></TABLE></TD></TR>",
                              MAX (1, TEXT_MIN_WIDTH - 6 - (BADGE_CHAR_WIDTH * g_utf8_strlen (badge, -1) + 12)));
    }

  g_string_append (label, "</TABLE></TD></TR></TABLE>");

  g_string_append (dot, "  ");
  append_quoted (dot, dot_id);
  g_string_append (dot, " [id=");
  append_quoted (dot, dot_id);
  g_string_append_printf (dot, ", label=<%s>];\n", label->str);
}

/* A condition as the canvas labels its edge: the expression on one line,
 * in a monospace font, or "otherwise" in italics for the default branch.
 * The canvas cuts a long expression short; the export keeps all of it. */
static void
append_edge (GString    *dot,
             const char *from,
             const char *to,
             const char *condition)
{
  g_string_append (dot, "  ");
  append_quoted (dot, from);
  g_string_append (dot, " -> ");
  append_quoted (dot, to);

  if (condition != NULL)
    {
      g_autoptr(GString) inner = g_string_new (NULL);

      if (g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
        {
          g_string_append (inner, "<FONT POINT-SIZE=\"9\"><I>");
          append_html (inner, C_("condition on a connection", "otherwise"));
          g_string_append (inner, "</I></FONT>");
        }
      else
        {
          g_autofree char *line = one_line (condition);

          g_string_append (inner, "<FONT FACE=\"monospace\" POINT-SIZE=\"9\">");
          append_html (inner, line);
          g_string_append (inner, "</FONT>");
        }

      g_string_append (dot, " [label=<");
      append_pill (dot, inner->str);
      g_string_append (dot, ">]");
    }

  g_string_append (dot, ";\n");
}

/* The step's identifier in DOT: its key, which is unique in a saved
 * workflow; one made from its identifier where the key is empty or taken,
 * as in a workflow being edited or read from elsewhere. */
static char *
dot_id_for (SkNode     *node,
            GHashTable *taken)
{
  const char *key = sk_node_get_key (node);
  g_autofree char *base = NULL;
  char *id;

  if (key != NULL && *key != '\0' && !g_hash_table_contains (taken, key))
    return g_strdup (key);

  base = g_strdup_printf ("step_%s", sk_node_get_id (node));
  id = g_strdup (base);
  for (guint n = 2; g_hash_table_contains (taken, id); n++)
    {
      g_free (id);
      id = g_strdup_printf ("%s_%u", base, n);
    }

  return id;
}

/**
 * sk_export_dot:
 * @project: a workflow
 *
 * Writes @project as a Graphviz DOT graph drawn like the canvas: a box per
 * step with its name, its state's colour and words, its run mark and the
 * badge of its control flow, and an arrow from each prior to the step with
 * its condition. Each step's identifier is its key. Graphviz's `dot` lays
 * it out from top to bottom.
 *
 * Returns: (transfer full): the DOT text, in UTF-8
 */
char *
sk_export_dot (SkProject *project)
{
  g_autoptr(GString) dot = g_string_new (NULL);
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(GHashTable) taken = NULL;
  g_autofree char *name = NULL;
  gboolean edges = FALSE;
  guint n_nodes;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  ids = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  taken = g_hash_table_new (g_str_hash, g_str_equal);
  name = one_line (sk_project_get_name (project));

  /* The header is for whoever opens the file, in English as the format's
   * words are. */
  if (*name != '\0')
    g_string_append_printf (dot, "// Workflow “%s”, exported from Skele-Code.\n", name);
  else
    g_string_append (dot, "// A workflow exported from Skele-Code.\n");
  g_string_append (dot,
                   "// Drawn as its canvas draws it; render it with: dot -Tsvg -o workflow.svg FILE\n"
                   "digraph ");
  append_quoted (dot, *name != '\0' ? name : "workflow");
  g_string_append (dot, " {\n");

  g_string_append_printf (dot,
                          "  graph [charset=\"UTF-8\", rankdir=\"TB\", bgcolor=\"%s\", fontname=\"%s\", "
                          "nodesep=\"0.5\", ranksep=\"0.6\", pad=\"0.3\"];\n"
                          "  node [shape=\"plain\", fontname=\"%s\", fontsize=\"11\", fontcolor=\"%s\"];\n"
                          "  edge [color=\"%s\", penwidth=\"1.5\", arrowsize=\"0.8\", fontname=\"%s\", "
                          "fontsize=\"9\", fontcolor=\"%s\"];\n",
                          BACKGROUND_COLOR, FONT, FONT, TEXT_COLOR, EDGE_COLOR, FONT, TEXT_COLOR);

  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (project));
  if (n_nodes > 0)
    g_string_append_c (dot, '\n');
  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      char *dot_id = dot_id_for (node, taken);

      g_hash_table_insert (ids, (gpointer) sk_node_get_id (node), dot_id);
      g_hash_table_add (taken, dot_id);
      append_node (dot, node, dot_id);
    }

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *priors = sk_node_get_priors (node);
      g_autoptr(GHashTable) drawn = g_hash_table_new (g_str_hash, g_str_equal);
      const char *to = g_hash_table_lookup (ids, sk_node_get_id (node));

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          const char *from = g_hash_table_lookup (ids, priors[j]);

          /* A prior that is not in the workflow has no box to start from,
           * as on the canvas. */
          if (from == NULL || !g_hash_table_add (drawn, (gpointer) priors[j]))
            continue;
          if (!edges)
            g_string_append_c (dot, '\n');
          edges = TRUE;
          append_edge (dot, from, to, sk_node_get_condition (node, priors[j]));
        }
    }

  g_string_append (dot, "}\n");

  return g_string_free (g_steal_pointer (&dot), FALSE);
}

/* Where Graphviz's messages go while a rendering runs, under the lock. */
static GString *graphviz_errors;

/* Graphviz hands its messages over in pieces. */
static int
collect_error (char *message)
{
  if (graphviz_errors != NULL)
    g_string_append (graphviz_errors, message);

  return 0;
}

static char *
graphviz_said (GString *errors)
{
  g_autofree char *said = one_line (errors->str);

  return *said != '\0' ? g_steal_pointer (&said) : g_strdup (_("Graphviz gave no reason"));
}

/**
 * sk_export_render_dot:
 * @dot: a graph in the DOT language, as sk_export_dot() writes it
 * @format: "svg" or "png"
 * @error: return location for a #GError
 *
 * Lays @dot out and draws it through Graphviz's library. It may be called
 * from any thread: drawings and arrangements take Graphviz in turn.
 *
 * Returns: (transfer full) (nullable): the drawing, or %NULL with @error set
 */
GBytes *
sk_export_render_dot (const char  *dot,
                      const char  *format,
                      GError     **error)
{
  GVC_t *graphviz_context;
  g_autoptr(GString) errors = g_string_new (NULL);
  g_autofree char *said = NULL;
  GBytes *bytes = NULL;
  agusererrf previous;
  Agraph_t *graph;

  g_return_val_if_fail (dot != NULL, NULL);
  g_return_val_if_fail (format != NULL, NULL);

  if (!g_str_equal (format, "svg") && !g_str_equal (format, "png"))
    {
      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_FORMAT,
                   _("Graphviz cannot draw “%s” here. The formats are: svg, png."), format);
      return NULL;
    }

  graphviz_context = _sk_graphviz_acquire ();

  graphviz_errors = errors;
  previous = agseterrf (collect_error);
  agreseterrors ();

  graph = agmemread (dot);
  if (graph == NULL)
    {
      said = graphviz_said (errors);
      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_GRAPHVIZ,
                   _("Graphviz could not read the workflow’s graph: %s"), said);
    }
  else
    {
      gboolean laid_out = gvLayout (graphviz_context, graph, "dot") == 0;

      /* Graphviz draws a label that it cannot read as the step's
       * identifier, and says so only in a message: any error fails the
       * export. */
      if (!laid_out || agerrors () >= AGERR)
        {
          said = graphviz_said (errors);
          g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_GRAPHVIZ,
                       _("Graphviz could not lay out the workflow: %s"), said);
        }
      else
        {
          char *data = NULL;
          unsigned int length = 0;

          /* After a failure the buffer's pointer may be stale, so it is
           * only freed after a success. */
          if (gvRenderData (graphviz_context, graph, format, &data, &length) == 0 && data != NULL)
            {
              if (length > 0)
                bytes = g_bytes_new (data, length);
              gvFreeRenderData (data);
            }
          if (bytes == NULL)
            {
              said = graphviz_said (errors);
              g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_GRAPHVIZ,
                           _("Graphviz could not draw the workflow as “%s”: %s"), format, said);
            }
        }

      if (laid_out)
        gvFreeLayout (graphviz_context, graph);
      agclose (graph);
    }

  agseterrf (previous);
  graphviz_errors = NULL;

  _sk_graphviz_release ();

  return bytes;
}

/**
 * sk_export_graphviz:
 * @project: a workflow
 * @format: "dot", "svg" or "png"
 * @error: return location for a #GError
 *
 * Writes @project as sk_export_dot() does, and for "svg" and "png" draws
 * that graph with Graphviz's library, laid out by `dot`.
 *
 * Returns: (transfer full): the file's content, or %NULL with @error set:
 *   %SK_EXPORT_ERROR_FORMAT for another format, %SK_EXPORT_ERROR_GRAPHVIZ
 *   with what Graphviz said when it failed
 */
GBytes *
sk_export_graphviz (SkProject   *project,
                    const char  *format,
                    GError     **error)
{
  static const char * const formats[] = { "dot", "svg", "png", NULL };
  g_autofree char *dot = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);
  g_return_val_if_fail (format != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_strv_contains (formats, format))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) formats);

      g_set_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_FORMAT,
                   _("Graphviz cannot export to “%s”. The formats are: %s."), format, list);
      return NULL;
    }

  dot = sk_export_dot (project);
  if (g_str_equal (format, "dot"))
    {
      gsize length = strlen (dot);

      return g_bytes_new_take (g_steal_pointer (&dot), length);
    }

  return sk_export_render_dot (dot, format, error);
}
