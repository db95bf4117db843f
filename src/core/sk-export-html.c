/* sk-export-html.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-export"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-json.h"
#include "sk-run-record.h"
#include "sk-step-folder.h"

/* A workflow as one HTML file that a person sends to a colleague (DESIGN
 * §11): its name and description, the picture of its steps, and per step
 * in the runner's order its task, state, report, timings, tokens, control
 * flow and output files, with the images inline.
 *
 * The file stands alone: no script, font, style sheet or picture comes from
 * anywhere else, and a Content-Security-Policy says so to the browser too.
 * Every text from the workflow or its files is escaped; pictures from the
 * steps are <img> elements with data: URIs, never markup of their own, so
 * an SVG that a step wrote cannot run a script. Only the workflow's own
 * picture is inline SVG: Graphviz draws it from escaped labels. */

/* Larger images are listed rather than inlined, and so are all those after
 * the page holds this much of them, so that the file stays one that can
 * be mailed. */
#define MAX_IMAGE_SIZE (5 * 1000 * 1000)
#define MAX_IMAGES_TOTAL (50 * 1000 * 1000)
/* How much of a table or text file is read and shown. */
#define PREVIEW_READ_SIZE (256 * 1024)
#define TABLE_ROWS 20
#define TABLE_COLUMNS 20
#define TABLE_CELL_CHARS 200
#define TEXT_LINES 40
#define TEXT_CHARS 8000
#define DETAIL_CHARS 4000

typedef struct
{
  GString *html;
  gsize    images_size;
} Page;


/* Appends @text escaped for HTML text and attribute values, as valid
 * UTF-8, with the control characters HTML does not allow as spaces. */
static void
append_escaped_len (GString    *html,
                    const char *text,
                    gssize      length)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return;

  valid = g_utf8_make_valid (text, length);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '&':
          g_string_append (html, "&amp;");
          break;
        case '<':
          g_string_append (html, "&lt;");
          break;
        case '>':
          g_string_append (html, "&gt;");
          break;
        case '"':
          g_string_append (html, "&quot;");
          break;
        case '\'':
          g_string_append (html, "&#39;");
          break;
        case '\r':
          break;
        default:
          if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0))
            g_string_append_c (html, ' ');
          else
            g_string_append_len (html, p, g_utf8_next_char (p) - p);
        }
    }
}

static void
append_escaped (GString    *html,
                const char *text)
{
  append_escaped_len (html, text, -1);
}

/* Appends @format with every string argument escaped: the format itself is
 * the program's own (translated) text. */
G_GNUC_PRINTF (2, 3)
static void
append_text_printf (GString    *html,
                    const char *format,
                    ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  append_escaped (html, text);
}

static void
append_element (GString    *html,
                const char *element,
                const char *class_name,
                const char *text)
{
  if (class_name != NULL)
    g_string_append_printf (html, "<%s class=\"%s\">", element, class_name);
  else
    g_string_append_printf (html, "<%s>", element);
  append_escaped (html, text);
  g_string_append_printf (html, "</%s>\n", element);
}

static void
append_term (GString    *html,
             const char *term)
{
  g_string_append (html, "<dt>");
  append_escaped (html, term);
  g_string_append (html, "</dt>");
}

static const char stylesheet[] =
  ":root{color-scheme:light dark;"
  "--bg:#fafafa;--fg:rgba(0,0,0,.8);--dim:rgba(0,0,0,.55);--card:#ffffff;"
  "--border:rgba(0,0,0,.12);--code:rgba(0,0,0,.05);--accent:#1c71d8;--shade:rgba(0,0,0,.07)}\n"
  "@media (prefers-color-scheme:dark){:root{"
  "--bg:#242424;--fg:#ffffff;--dim:rgba(255,255,255,.6);--card:#303030;"
  "--border:rgba(255,255,255,.15);--code:rgba(255,255,255,.08);--accent:#78aeed;"
  "--shade:rgba(0,0,0,.36)}}\n"
  "*{box-sizing:border-box}\n"
  "body{margin:0;background:var(--bg);color:var(--fg);"
  "font-family:Cantarell,system-ui,-apple-system,\"Segoe UI\",Ubuntu,\"Noto Sans\",sans-serif;"
  "font-size:15px;line-height:1.5;-webkit-text-size-adjust:100%}\n"
  "main{max-width:56rem;margin:0 auto;padding:24px 16px 48px}\n"
  "h1{font-size:2em;font-weight:800;margin:.2em 0 .3em;line-height:1.2;overflow-wrap:anywhere}\n"
  "h2{font-size:1.3em;font-weight:700;margin:0;line-height:1.3;overflow-wrap:anywhere}\n"
  "h3{font-size:.8em;font-weight:700;text-transform:uppercase;letter-spacing:.05em;"
  "color:var(--dim);margin:1.2em 0 .4em}\n"
  "p{margin:.4em 0}\n"
  ".description{font-size:1.1em;white-space:pre-wrap;overflow-wrap:anywhere}\n"
  ".dim,.summary{color:var(--dim)}\n"
  ".card{background:var(--card);border-radius:12px;"
  "box-shadow:0 0 0 1px var(--border),0 1px 3px 1px var(--shade);"
  "margin:18px 0;padding:16px 18px;overflow:hidden}\n"
  "figure{margin:18px 0}\n"
  "figure.graph{background:#fafafa;border-radius:12px;padding:8px;"
  "box-shadow:0 0 0 1px var(--border);text-align:center;overflow:auto}\n"
  "figure.graph svg{max-width:100%;height:auto}\n"
  ".step{border-left:6px solid var(--state)}\n"
  ".step-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:6px 12px}\n"
  ".number{color:var(--dim);font-weight:400}\n"
  ".state{display:inline-block;border-radius:999px;padding:1px 10px;font-size:.85em;"
  "font-weight:700;background:var(--state);color:#241f31}\n"
  "dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:12px 0 0}\n"
  "dt{color:var(--dim)}\n"
  "dd{margin:0;overflow-wrap:anywhere}\n"
  "@media (max-width:560px){dl{grid-template-columns:1fr}dd{margin-bottom:6px}"
  "main{padding:16px 10px 32px}.card{padding:12px}figure.graph svg{max-width:none}}\n"
  ".task,.report{white-space:pre-wrap;overflow-wrap:anywhere}\n"
  ".report{background:var(--code);border-radius:8px;padding:8px 12px}\n"
  "pre,code{font-family:\"Source Code Pro\",\"DejaVu Sans Mono\",ui-monospace,monospace;"
  "font-size:.9em}\n"
  "pre{background:var(--code);border-radius:8px;padding:8px 12px;overflow:auto;margin:.4em 0;"
  "white-space:pre-wrap;overflow-wrap:anywhere}\n"
  "code{background:var(--code);border-radius:4px;padding:0 3px;overflow-wrap:anywhere}\n"
  ".file{margin:12px 0}\n"
  ".file-name{font-weight:700;overflow-wrap:anywhere}\n"
  ".file img{display:block;max-width:100%;height:auto;margin:6px 0;border-radius:6px;"
  "background:#fff}\n"
  ".table{overflow-x:auto;margin:6px 0}\n"
  "table{border-collapse:collapse;font-size:.9em}\n"
  "th,td{border:1px solid var(--border);padding:2px 8px;text-align:left;vertical-align:top}\n"
  "th{background:var(--code)}\n"
  "ul.files{padding-left:1.2em}\n"
  "details summary{cursor:pointer;color:var(--dim)}\n"
  "footer{color:var(--dim);font-size:.85em;margin-top:32px;text-align:center}\n"
  "@media print{body{background:#fff}.card{box-shadow:0 0 0 1px #ccc;break-inside:avoid}}\n";

static void
append_stylesheet (GString *html)
{
  g_string_append (html, "<style>\n");
  g_string_append (html, stylesheet);
  for (SkNodeState state = SK_NODE_STATE_IDLE; state <= SK_NODE_STATE_AWAITING_APPROVAL; state++)
    g_string_append_printf (html, ".state-%s{--state:%s}\n",
                            sk_node_state_to_string (state), sk_node_state_color (state));
  g_string_append (html, "</style>\n");
}

/* The state that the step's last run left, for a workflow read from disk,
 * whose steps are idle until something happens to them. */
static SkNodeState
state_from_record (SkNodeState  state,
                   JsonObject  *record)
{
  const char *status;

  if (state != SK_NODE_STATE_IDLE || record == NULL)
    return state;

  status = sk_json_get_string (record, "status");
  if (g_strcmp0 (status, "success") == 0)
    return SK_NODE_STATE_SUCCEEDED;
  if (g_strcmp0 (status, "failed") == 0)
    return SK_NODE_STATE_FAILED;
  if (g_strcmp0 (status, "skipped") == 0)
    return SK_NODE_STATE_SKIPPED;
  if (g_strcmp0 (status, "cancelled") == 0)
    return SK_NODE_STATE_CANCELLED;

  return state;
}

static char *
node_folder_path (SkProject *project,
                  SkNode    *node)
{
  g_autoptr(GFile) folder = sk_project_get_node_folder (project, node);

  return folder != NULL ? g_file_get_path (folder) : NULL;
}

/* The SVG element of Graphviz's drawing, without the XML prolog, the
 * document type and the comments, which HTML has no use for; the
 * namespaces are implied in HTML. */
static void
append_svg (GString *html,
            GBytes  *svg)
{
  gsize size;
  const char *data = g_bytes_get_data (svg, &size);
  g_autofree char *text = g_strndup (data, size);
  g_autoptr(GString) cleaned = g_string_new (NULL);
  const char *p = strstr (text, "<svg");

  while (p != NULL && *p != '\0')
    {
      const char *comment = strstr (p, "<!--");
      const char *end;

      if (comment == NULL)
        {
          g_string_append (cleaned, p);
          break;
        }
      g_string_append_len (cleaned, p, comment - p);
      end = strstr (comment + 4, "-->");
      p = end != NULL ? end + 3 : NULL;
    }

  g_string_replace (cleaned, " xmlns=\"http://www.w3.org/2000/svg\"", "", 0);
  g_string_replace (cleaned, " xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "", 0);
  g_string_append (html, cleaned->str);
}

/* The picture of the workflow, drawn from a copy whose steps show what
 * their last runs left, so that the export changes nothing in @project. */
static void
append_graph (GString    *html,
              SkProject  *project,
              GHashTable *states)
{
  g_autoptr(SkProject) copy = NULL;
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;

  data = sk_project_to_data (project, &length);
  copy = sk_project_load_from_data (data, length, sk_project_get_folder (project), &error);
  if (copy != NULL)
    {
      for (guint i = 0; i < sk_project_get_n_nodes (copy); i++)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (copy), i);
          gpointer state;

          if (g_hash_table_lookup_extended (states, sk_node_get_id (node), NULL, &state))
            sk_node_set_state (node, GPOINTER_TO_INT (state));
        }
      svg = sk_export_graphviz (copy, "svg", &error);
    }

  if (svg == NULL)
    {
      g_string_append (html, "<p class=\"dim\">");
      /* Translators: %s says what went wrong. */
      append_text_printf (html, _("The picture of the workflow could not be drawn: %s"),
                          error->message);
      g_string_append (html, "</p>\n");
      return;
    }

  g_string_append (html, "<figure class=\"graph\" role=\"img\" aria-label=\"");
  append_escaped (html, _("The steps of the workflow and how they connect"));
  g_string_append (html, "\">\n");
  append_svg (html, svg);
  g_string_append (html, "</figure>\n");
}

static char *
format_time (GDateTime *time)
{
  g_autoptr(GDateTime) local = g_date_time_to_local (time);

  /* Translators: a date and time, see g_date_time_format(). */
  return g_date_time_format (local, _("%-d %B %Y at %H:%M:%S"));
}

static char *
format_duration (double seconds)
{
  if (seconds < 10)
    /* Translators: a duration in seconds. */
    return g_strdup_printf (_("%.2f s"), seconds);
  if (seconds < 60)
    return g_strdup_printf (_("%.1f s"), seconds);
  if (seconds < 3600)
    /* Translators: a duration in minutes and seconds. */
    return g_strdup_printf (_("%u min %u s"), (guint) seconds / 60, (guint) seconds % 60);

  /* Translators: a duration in hours and minutes. */
  return g_strdup_printf (_("%u h %u min"), (guint) seconds / 3600, ((guint) seconds % 3600) / 60);
}

/* When the step's last run started and finished, and how long it took:
 * the record keeps the end and the length. */
static void
append_timings (GString    *html,
                JsonObject *record)
{
  g_autoptr(GDateTime) finished = NULL;
  g_autofree char *duration = NULL;
  const char *at;
  double seconds = -1;

  append_term (html, _("Timings"));
  g_string_append (html, "<dd>");
  if (record == NULL)
    {
      append_escaped (html, _("Not run yet"));
      g_string_append (html, "</dd>\n");
      return;
    }

  at = sk_json_get_string (record, "finished");
  finished = at != NULL ? g_date_time_new_from_iso8601 (at, NULL) : NULL;
  if (!sk_json_get_double (record, "seconds", &seconds) || seconds < 0 || !isfinite (seconds))
    seconds = -1;
  if (seconds >= 0)
    duration = format_duration (seconds);

  if (finished != NULL && seconds >= 0)
    {
      g_autoptr(GDateTime) end = g_date_time_to_local (finished);
      g_autoptr(GDateTime) start = g_date_time_add_seconds (end, -seconds);

      if (g_date_time_get_year (start) == g_date_time_get_year (end) &&
          g_date_time_get_day_of_year (start) == g_date_time_get_day_of_year (end))
        {
          /* Translators: a date, see g_date_time_format(). */
          g_autofree char *day = g_date_time_format (end, _("%-d %B %Y"));
          g_autofree char *from = g_date_time_format (start, "%H:%M:%S");
          g_autofree char *to = g_date_time_format (end, "%H:%M:%S");

          /* Translators: a duration, a date, and two times of day. */
          append_text_printf (html, _("%s, on %s from %s to %s"), duration, day, from, to);
        }
      else
        {
          g_autofree char *from = format_time (start);
          g_autofree char *to = format_time (end);

          /* Translators: a duration, then two dates and times. */
          append_text_printf (html, _("%s, from %s to %s"), duration, from, to);
        }
    }
  else if (finished != NULL)
    {
      g_autofree char *end = format_time (finished);

      /* Translators: %s is a date and time. */
      append_text_printf (html, _("Finished on %s"), end);
    }
  else if (duration != NULL)
    {
      /* Translators: %s is a duration. */
      append_text_printf (html, _("Took %s"), duration);
    }
  else
    {
      append_escaped (html, _("Unknown"));
    }
  g_string_append (html, "</dd>\n");
}

static void
append_tokens (GString *html,
               SkNode  *node)
{
  guint64 prompt = 0;
  guint64 completion = 0;

  sk_node_get_tokens (node, &prompt, &completion);
  append_term (html, _("Coding agent"));
  g_string_append (html, "<dd>");
  if (prompt == 0 && completion == 0)
    {
      append_escaped (html, _("No tokens used"));
    }
  else
    {
      g_autofree char *read = g_strdup_printf ("%" G_GUINT64_FORMAT, prompt);
      g_autofree char *written = g_strdup_printf ("%" G_GUINT64_FORMAT, completion);

      /* Translators: the numbers of tokens the coding agent's model read and wrote. */
      append_text_printf (html, _("%s tokens read, %s tokens written"), read, written);
    }
  g_string_append (html, "</dd>\n");
}

/* How the step's items ran, from the records under KEY/items/N/. */
static void
append_items (GString    *html,
              SkNode     *node,
              const char *folder_path)
{
  g_autofree char *items_path = g_build_filename (folder_path, "items", NULL);
  g_autoptr(GDir) dir = g_dir_open (items_path, 0, NULL);
  guint succeeded = 0;
  guint failed = 0;
  guint skipped = 0;
  guint total = 0;
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *item_path = NULL;
      g_autoptr(JsonObject) record = NULL;
      const char *status;
      guint64 index;

      if (!g_ascii_string_to_unsigned (name, 10, 0, G_MAXUINT - 1, &index, NULL))
        continue;
      item_path = g_build_filename (items_path, name, NULL);
      record = sk_run_record_read (item_path, sk_node_get_key (node));
      if (record == NULL)
        continue;

      total++;
      status = sk_json_get_string (record, "status");
      if (g_strcmp0 (status, "success") == 0)
        succeeded++;
      else if (g_strcmp0 (status, "skipped") == 0)
        skipped++;
      else
        failed++;
    }

  if (total == 0)
    return;

  g_string_append (html, " ");
  /* Translators: the numbers of items a for-each step ran, by their outcome. */
  append_text_printf (html, g_dngettext (GETTEXT_PACKAGE,
                                         "Its last run had %u item: %u succeeded, %u failed, "
                                         "%u skipped.",
                                         "Its last run had %u items: %u succeeded, %u failed, "
                                         "%u skipped.", total),
                      total, succeeded, failed, skipped);
}

static const char *
node_name (SkProject  *project,
           const char *id)
{
  SkNode *node = id != NULL ? sk_project_get_node (project, id) : NULL;

  return node != NULL ? sk_node_get_name (node) : id != NULL ? id : "";
}

/* Starts the control flow's entry for its first line, or a new line. */
static void
begin_control_flow_line (GString  *html,
                         gboolean *any)
{
  if (!*any)
    {
      append_term (html, _("Control flow"));
      g_string_append (html, "<dd>");
    }
  else
    {
      g_string_append (html, "<br>\n");
    }
  *any = TRUE;
}

/* The step's control flow in words (DESIGN §10). */
static void
append_control_flow (GString    *html,
                     SkProject  *project,
                     SkNode     *node,
                     SkNodeState state,
                     const char *folder_path)
{
  const char * const *priors = sk_node_get_priors (node);
  const char *prior_id = NULL;
  const char *path = NULL;
  const char *workflow = sk_node_get_workflow (node);
  gboolean any = FALSE;

  for (guint i = 0; priors[i] != NULL; i++)
    {
      const char *condition = sk_node_get_condition (node, priors[i]);

      if (condition == NULL)
        continue;
      begin_control_flow_line (html, &any);

      if (g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
        {
          /* Translators: %s is a step's name. */
          append_text_printf (html, _("Runs after “%s” when no other condition on it is true."),
                              node_name (project, priors[i]));
        }
      else
        {
          /* Translators: %s is a step's name; a condition in code follows. */
          append_text_printf (html, _("Runs after “%s” when this is true:"),
                              node_name (project, priors[i]));
          g_string_append (html, " <code>");
          append_escaped (html, condition);
          g_string_append (html, "</code>");
        }
    }

  if (sk_node_get_approval (node))
    {
      g_autoptr(SkApproval) approval = NULL;

      begin_control_flow_line (html, &any);

      append_escaped (html, _("An approval gate: the run stops before it until someone "
                              "approves or denies it."));
      g_string_append (html, " ");
      if (folder_path != NULL)
        approval = sk_approval_read (folder_path, sk_node_get_key (node));
      if (state == SK_NODE_STATE_AWAITING_APPROVAL)
        {
          append_escaped (html, _("It waits for a decision."));
        }
      else if (approval != NULL)
        {
          g_autofree char *description = sk_approval_describe (approval);

          append_escaped (html, description);
        }
      else
        {
          append_escaped (html, _("No one has decided yet."));
        }
    }

  if (sk_node_get_foreach (node, &prior_id, &path))
    {
      begin_control_flow_line (html, &any);

      /* Translators: the first %s is a path in a step's output, the second a step's name. */
      append_text_printf (html, _("Runs once for each item of “%s” in the output of “%s”."),
                          path, node_name (project, prior_id));
      if (folder_path != NULL)
        append_items (html, node, folder_path);
    }

  if (workflow != NULL)
    {
      begin_control_flow_line (html, &any);

      /* Translators: %s is a folder. */
      append_text_printf (html, _("Runs the workflow in the folder “%s” as one step."), workflow);
    }

  if (any)
    g_string_append (html, "</dd>\n");
}

static const char *
image_type (const char *lower_name)
{
  static const struct { const char *suffix; const char *type; } types[] = {
    { ".png", "image/png" },
    { ".jpg", "image/jpeg" },
    { ".jpeg", "image/jpeg" },
    { ".gif", "image/gif" },
    { ".svg", "image/svg+xml" },
    { ".webp", "image/webp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (lower_name, types[i].suffix))
      return types[i].type;

  return NULL;
}

static gboolean
is_text_name (const char *lower_name)
{
  static const char * const suffixes[] = {
    ".txt", ".md", ".markdown", ".json", ".log", ".py", ".yaml", ".yml", ".toml", ".ini",
    ".cfg", ".xml", ".html", ".htm", ".tex", ".rst", ".r", ".sh", ".sql", ".js", ".css",
  };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (lower_name, suffixes[i]))
      return TRUE;

  return FALSE;
}

/* Reads at most @limit bytes of the file at @path. */
static char *
read_head (const char *path,
           gsize       limit,
           gsize      *length)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
  g_autofree char *data = NULL;
  gsize read = 0;

  *length = 0;
  if (stream == NULL)
    return NULL;

  data = g_malloc (limit + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), data, limit, &read, NULL, NULL))
    return NULL;
  data[read] = '\0';
  *length = read;

  return g_steal_pointer (&data);
}

static void
append_note (GString    *html,
             const char *text)
{
  append_element (html, "p", "dim", text);
}

static void
append_image (Page       *page,
              const char *path,
              const char *name,
              const char *type,
              goffset     size)
{
  g_autofree char *contents = NULL;
  g_autofree char *encoded = NULL;
  g_autofree char *size_text = g_format_size (size);
  gsize length = 0;

  if (size > MAX_IMAGE_SIZE)
    {
      g_autofree char *limit = g_format_size (MAX_IMAGE_SIZE);

      g_string_append (page->html, "<p class=\"dim\">");
      /* Translators: the first %s is a file's size, the second the largest size shown. */
      append_text_printf (page->html, _("This picture is too large to include (%s, more than %s); "
                                        "it is in the step’s folder."), size_text, limit);
      g_string_append (page->html, "</p>\n");
      return;
    }
  if (page->images_size + size > MAX_IMAGES_TOTAL)
    {
      /* Translators: %s is a file's size. */
      g_string_append (page->html, "<p class=\"dim\">");
      append_text_printf (page->html, _("This picture (%s) is not included, so that the report "
                                        "stays small enough to send; it is in the step’s folder."),
                          size_text);
      g_string_append (page->html, "</p>\n");
      return;
    }

  if (!g_file_get_contents (path, &contents, &length, NULL) || length == 0)
    {
      append_note (page->html, _("This picture could not be read."));
      return;
    }

  page->images_size += length;
  encoded = g_base64_encode ((const guchar *) contents, length);
  g_string_append_printf (page->html, "<img loading=\"lazy\" src=\"data:%s;base64,%s\" alt=\"",
                          type, encoded);
  append_escaped (page->html, name);
  g_string_append (page->html, "\">\n");
}

/* Splits the head of a CSV or TSV file into rows of cells, reading quoted
 * cells as RFC 4180 does. Stops after @max_rows rows; *complete says
 * whether the rows are all there are in @text. */
static GPtrArray *
parse_table (const char *text,
             gsize       length,
             char        separator,
             guint       max_rows,
             gboolean   *complete)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *row = NULL;
  g_autoptr(GString) cell = g_string_new (NULL);
  gboolean quoted = FALSE;
  gsize i = 0;

  *complete = FALSE;
  while (i < length)
    {
      char c = text[i];

      if (row == NULL)
        row = g_ptr_array_new_with_free_func (g_free);

      if (quoted)
        {
          if (c == '"' && i + 1 < length && text[i + 1] == '"')
            {
              g_string_append_c (cell, '"');
              i++;
            }
          else if (c == '"')
            quoted = FALSE;
          else
            g_string_append_c (cell, c);
        }
      else if (c == '"' && cell->len == 0)
        quoted = TRUE;
      else if (c == separator)
        {
          g_ptr_array_add (row, g_strdup (cell->str));
          g_string_truncate (cell, 0);
        }
      else if (c == '\n')
        {
          g_ptr_array_add (row, g_strdup (cell->str));
          g_string_truncate (cell, 0);
          g_ptr_array_add (rows, g_steal_pointer (&row));
          if (rows->len == max_rows)
            {
              *complete = i + 1 == length;
              return rows;
            }
        }
      else if (c != '\r')
        g_string_append_c (cell, c);
      i++;
    }

  if (row != NULL || cell->len > 0)
    {
      if (row == NULL)
        row = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (row, g_strdup (cell->str));
      g_ptr_array_add (rows, g_steal_pointer (&row));
    }
  *complete = TRUE;

  return rows;
}

static void
append_cell (GString    *html,
             const char *element,
             const char *text)
{
  g_string_append_printf (html, "<%s>", element);
  if (g_utf8_strlen (text, -1) > TABLE_CELL_CHARS)
    {
      g_autofree char *valid = g_utf8_make_valid (text, -1);
      const char *end = g_utf8_offset_to_pointer (valid, TABLE_CELL_CHARS);

      append_escaped_len (html, valid, end - valid);
      g_string_append (html, "…");
    }
  else
    append_escaped (html, text);
  g_string_append_printf (html, "</%s>", element);
}

static void
append_table (GString    *html,
              const char *path,
              char        separator,
              goffset     size)
{
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  gsize length = 0;
  gboolean complete = FALSE;
  guint columns = 0;

  text = read_head (path, PREVIEW_READ_SIZE, &length);
  if (text == NULL)
    {
      append_note (html, _("This table could not be read."));
      return;
    }

  /* The header and TABLE_ROWS rows of data. */
  rows = parse_table (text, length, separator, TABLE_ROWS + 1, &complete);
  if ((goffset) length < size)
    complete = FALSE;
  if (rows->len == 0)
    {
      append_note (html, _("This table is empty."));
      return;
    }

  for (guint i = 0; i < rows->len; i++)
    columns = MAX (columns, ((GPtrArray *) g_ptr_array_index (rows, i))->len);

  g_string_append (html, "<div class=\"table\"><table>\n");
  for (guint i = 0; i < rows->len; i++)
    {
      GPtrArray *row = g_ptr_array_index (rows, i);
      const char *element = i == 0 ? "th" : "td";

      if (i == 0)
        g_string_append (html, "<thead>");
      else if (i == 1)
        g_string_append (html, "<tbody>");
      g_string_append (html, "<tr>");
      for (guint j = 0; j < MIN (columns, TABLE_COLUMNS); j++)
        append_cell (html, element, j < row->len ? g_ptr_array_index (row, j) : "");
      if (columns > TABLE_COLUMNS)
        append_cell (html, element, "…");
      g_string_append (html, "</tr>");
      if (i == 0)
        g_string_append (html, "</thead>\n");
      else
        g_string_append_c (html, '\n');
    }
  if (rows->len > 1)
    g_string_append (html, "</tbody>");
  g_string_append (html, "</table></div>\n");

  if (!complete)
    {
      g_autofree char *size_text = g_format_size (size);
      g_autofree char *note = NULL;

      /* Translators: %u is a number of rows, %s a file's size. */
      note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "The first %u row of a table of %s.",
                                           "The first %u rows of a table of %s.",
                                           rows->len - 1),
                              rows->len - 1, size_text);
      append_note (html, note);
    }
  else if (columns > TABLE_COLUMNS)
    {
      /* Translators: %u is a number of columns. */
      g_autofree char *note = g_strdup_printf (_("The first %u of %u columns."),
                                               TABLE_COLUMNS, columns);

      append_note (html, note);
    }
}

/* The first lines of a text file, or FALSE when it is no text after all. */
static gboolean
append_text_file (GString    *html,
                  const char *path,
                  gboolean    known_text,
                  goffset     size)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  const char *end;
  const char *p;
  guint lines = 0;
  gboolean cut;

  text = read_head (path, PREVIEW_READ_SIZE, &length);
  if (text == NULL || memchr (text, '\0', length) != NULL)
    return FALSE;

  if (!known_text)
    {
      g_autofree char *type = g_content_type_guess (path, (const guchar *) text, MIN (length, 4096),
                                                    NULL);

      /* A valid UTF-8 head, cut at most in the middle of its last
       * character, and a type that is text. */
      if (!g_utf8_validate (text, length, &end) || length - (end - text) > 3 ||
          !g_content_type_is_a (type, "text/plain"))
        return FALSE;
    }

  for (p = text; *p != '\0' && lines < TEXT_LINES && p - text < TEXT_CHARS; p++)
    if (*p == '\n')
      lines++;
  cut = *p != '\0' || (goffset) length < size;

  g_string_append (html, "<pre>");
  append_escaped_len (html, text, p - text);
  g_string_append (html, "</pre>\n");
  if (cut)
    {
      g_autofree char *size_text = g_format_size (size);

      /* Translators: %s is a file's size. */
      g_string_append (html, "<p class=\"dim\">");
      append_text_printf (html, _("The beginning of a file of %s."), size_text);
      g_string_append (html, "</p>\n");
    }

  return TRUE;
}

/* The real path of @relative when it names a file inside the step's
 * folder, links resolved, or %NULL: the report reads nothing from
 * elsewhere, so that a workflow from someone else cannot have it carry the
 * exporter's own files. */
static char *
real_path_inside (const char *folder_path,
                  const char *relative)
{
  g_autofree char *path = NULL;
  g_autofree char *real_folder = NULL;
  g_autofree char *real = NULL;
  gsize length;

  if (g_path_is_absolute (relative))
    return NULL;

  path = g_build_filename (folder_path, relative, NULL);
  real_folder = realpath (folder_path, NULL);
  real = realpath (path, NULL);
  if (real_folder == NULL || real == NULL)
    return NULL;

  length = strlen (real_folder);
  if (strncmp (real, real_folder, length) != 0 || real[length] != G_DIR_SEPARATOR)
    return NULL;

  return g_steal_pointer (&real);
}

static void
append_file (Page       *page,
             const char *folder_path,
             const char *relative)
{
  GString *html = page->html;
  g_autofree char *path = NULL;
  g_autofree char *lower = NULL;
  g_autofree char *size_text = NULL;
  g_autofree char *unresolved = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInfo) info = NULL;
  const char *type;
  goffset size;

  g_string_append (html, "<div class=\"file\"><div class=\"file-name\">");
  append_escaped (html, relative);
  g_string_append (html, "</div>\n");

  if (folder_path == NULL)
    {
      append_note (html, _("Not included: the workflow has no folder."));
      g_string_append (html, "</div>\n");
      return;
    }

  unresolved = g_build_filename (folder_path, relative, NULL);
  path = real_path_inside (folder_path, relative);
  if (path == NULL)
    {
      gboolean exists = g_path_is_absolute (relative) ||
                        g_file_test (unresolved, G_FILE_TEST_EXISTS);

      append_note (html, exists ? _("Outside the step’s folder, so not included.")
                                : _("Missing: the step did not leave this file."));
      g_string_append (html, "</div>\n");
      return;
    }

  file = g_file_new_for_path (path);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      append_note (html, info == NULL ? _("Missing: the step did not leave this file.")
                                      : _("Not a file, so not included."));
      g_string_append (html, "</div>\n");
      return;
    }

  size = g_file_info_get_size (info);
  size_text = g_format_size (size);
  lower = g_utf8_strdown (relative, -1);

  if ((type = image_type (lower)) != NULL)
    {
      append_image (page, path, relative, type, size);
    }
  else if (g_str_has_suffix (lower, ".csv") || g_str_has_suffix (lower, ".tsv"))
    {
      append_table (html, path, g_str_has_suffix (lower, ".tsv") ? '\t' : ',', size);
    }
  else if (size == 0 || !append_text_file (html, path, is_text_name (lower), size))
    {
      /* Translators: %s is a file's size. */
      g_autofree char *note = g_strdup_printf (_("A file of %s, not shown here."), size_text);

      append_note (html, note);
    }

  g_string_append (html, "</div>\n");
}

static void
append_step (Page        *page,
             SkProject   *project,
             SkNode      *node,
             guint        number,
             SkNodeState  state,
             JsonObject  *record)
{
  GString *html = page->html;
  g_autofree char *folder_path = node_folder_path (project, node);
  const char * const *files = sk_node_get_output_files (node);
  g_autoptr(GPtrArray) recorded_files = NULL;
  const char *report = sk_node_get_output_text (node);
  const char *description = sk_node_get_description (node);
  const char *error_text = sk_node_get_error_text (node);
  const char *detail = sk_node_get_error_detail (node);

  /* A workflow that was not saved after its run still has the record's
   * copy of what the run wrote. */
  if ((report == NULL || report[0] == '\0') && record != NULL)
    report = sk_json_get_string (record, "output_text");
  if (files[0] == NULL && record != NULL)
    {
      JsonArray *array = sk_json_get_array (record, "output_files");

      recorded_files = g_ptr_array_new ();
      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          const char *name = json_node_get_string (json_array_get_element (array, i));

          if (name != NULL)
            g_ptr_array_add (recorded_files, (char *) name);
        }
      g_ptr_array_add (recorded_files, NULL);
      files = (const char * const *) recorded_files->pdata;
    }
  if ((error_text == NULL || error_text[0] == '\0') && record != NULL)
    error_text = sk_json_get_string (record, "error");
  if ((detail == NULL || detail[0] == '\0') && record != NULL)
    detail = sk_json_get_string (record, "detail");

  g_string_append_printf (html, "<section class=\"card step state-%s\" id=\"step-",
                          sk_node_state_to_string (state));
  append_escaped (html, sk_node_get_key (node));
  g_string_append (html, "\">\n<div class=\"step-head\"><h2><span class=\"number\">");
  g_string_append_printf (html, "%u.</span> ", number);
  append_escaped (html, sk_node_get_name (node));
  g_string_append (html, "</h2>");
  append_element (html, "span", "state", sk_node_state_label (state));
  g_string_append (html, "</div>\n");

  if (description != NULL && description[0] != '\0')
    append_element (html, "p", "dim task", description);

  g_string_append (html, "<dl>\n");
  append_term (html, _("Task"));
  append_element (html, "dd", "task",
                  sk_node_get_input_text (node)[0] != '\0' ? sk_node_get_input_text (node)
                                                          : _("No task written"));
  append_timings (html, record);
  append_tokens (html, node);
  append_control_flow (html, project, node, state, folder_path);
  if (error_text != NULL && error_text[0] != '\0')
    {
      append_term (html, state == SK_NODE_STATE_SKIPPED ? _("Why skipped") : _("Problem"));
      append_element (html, "dd", NULL, error_text);
    }
  g_string_append (html, "</dl>\n");

  if (detail != NULL && detail[0] != '\0')
    {
      g_string_append (html, "<details><summary>");
      append_escaped (html, _("Details"));
      g_string_append (html, "</summary><pre>");
      if (strlen (detail) > DETAIL_CHARS)
        {
          /* The end of the detail says most: the exception. */
          const char *tail = g_utf8_find_next_char (detail + strlen (detail) - DETAIL_CHARS, NULL);

          g_string_append (html, "…");
          append_escaped (html, tail != NULL ? tail : "");
        }
      else
        append_escaped (html, detail);
      g_string_append (html, "</pre></details>\n");
    }

  append_element (html, "h3", NULL, _("Report"));
  if (report != NULL && report[0] != '\0')
    append_element (html, "div", "report", report);
  else
    append_note (html, _("No report."));

  if (files[0] != NULL)
    {
      append_element (html, "h3", NULL, _("Files"));
      for (guint i = 0; files[i] != NULL; i++)
        append_file (page, folder_path, files[i]);
    }

  g_string_append (html, "</section>\n");
}

static void
record_free (gpointer record)
{
  if (record != NULL)
    json_object_unref (record);
}

static void
append_summary (GString    *html,
                SkProject  *project,
                GPtrArray  *order,
                GHashTable *states,
                double      seconds)
{
  guint counts[SK_NODE_STATE_AWAITING_APPROVAL + 1] = { 0, };
  g_autoptr(GString) line = g_string_new (NULL);
  guint64 prompt = 0;
  guint64 completion = 0;

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      SkNodeState state = GPOINTER_TO_INT (g_hash_table_lookup (states, sk_node_get_id (node)));

      if (state <= SK_NODE_STATE_AWAITING_APPROVAL)
        counts[state]++;
    }

  g_string_append_printf (line, g_dngettext (GETTEXT_PACKAGE, "%u step", "%u steps", order->len),
                          order->len);
  for (SkNodeState state = SK_NODE_STATE_IDLE; state <= SK_NODE_STATE_AWAITING_APPROVAL; state++)
    {
      if (counts[state] == 0)
        continue;
      /* Translators: a separator, then a number of steps and their state, as in
       * “9 steps · 8 Succeeded”. */
      g_string_append_printf (line, _(" · %u %s"), counts[state], sk_node_state_label (state));
    }
  if (seconds > 0)
    {
      g_autofree char *duration = format_duration (seconds);

      /* Translators: %s is a duration. */
      g_string_append_printf (line, _(" · %s of running"), duration);
    }
  sk_project_get_tokens (project, &prompt, &completion);
  if (prompt + completion > 0)
    {
      g_autofree char *tokens = g_strdup_printf ("%" G_GUINT64_FORMAT, prompt + completion);

      /* Translators: %s is a number of tokens the coding agent used. */
      g_string_append_printf (line, _(" · %s tokens"), tokens);
    }

  append_element (html, "p", "summary", line->str);
}

/**
 * sk_export_html_text:
 * @project: a workflow
 *
 * Writes @project as sk_export_html() does, to a string.
 *
 * Returns: (transfer full): the HTML report
 */
char *
sk_export_html_text (SkProject *project)
{
  g_autoptr(GString) html = g_string_new (NULL);
  g_autoptr(GPtrArray) order = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) states = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *now_text = NULL;
  const char *name;
  const char *description;
  double total_seconds = 0;
  Page page = { NULL, 0 };

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  page.html = html;
  name = sk_project_get_name (project);
  if (name == NULL || name[0] == '\0')
    name = _("Untitled workflow");
  description = sk_project_get_description (project);

  /* A cycle has no runner's order; the steps then follow the file's. */
  order = sk_project_topological_order (project, NULL);
  if (order == NULL)
    {
      order = g_ptr_array_new ();
      for (guint i = 0; i < sk_project_get_n_nodes (project); i++)
        {
          g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);

          g_ptr_array_add (order, node);
        }
    }

  records = g_ptr_array_new_with_free_func (record_free);
  states = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      g_autofree char *folder_path = node_folder_path (project, node);
      JsonObject *record = NULL;
      double seconds;

      if (folder_path != NULL)
        record = sk_run_record_read (folder_path, sk_node_get_key (node));

      g_ptr_array_add (records, record);
      g_hash_table_insert (states, (char *) sk_node_get_id (node),
                           GINT_TO_POINTER (state_from_record (sk_node_get_state (node), record)));
      if (record != NULL && sk_json_get_double (record, "seconds", &seconds) && seconds > 0)
        total_seconds += seconds;
    }

  g_string_append (html, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n");
  g_string_append (html, "<meta name=\"viewport\" "
                         "content=\"width=device-width, initial-scale=1\">\n");
  /* Nothing from the network, no script, whatever the page holds. */
  g_string_append (html, "<meta http-equiv=\"Content-Security-Policy\" "
                         "content=\"default-src 'none'; img-src data:; "
                         "style-src 'unsafe-inline'\">\n");
  g_string_append (html, "<meta name=\"color-scheme\" content=\"light dark\">\n");
  g_string_append (html, "<meta name=\"generator\" content=\"Skele-Code " PACKAGE_VERSION "\">\n");
  g_string_append (html, "<title>");
  append_escaped (html, name);
  g_string_append (html, "</title>\n");
  append_stylesheet (html);
  g_string_append (html, "</head>\n<body>\n<main>\n<header>\n");
  append_element (html, "h1", NULL, name);
  if (description != NULL && description[0] != '\0')
    append_element (html, "p", "description", description);
  append_summary (html, project, order, states, total_seconds);
  g_string_append (html, "</header>\n");

  if (order->len > 0)
    append_graph (html, project, states);
  else
    append_note (html, _("This workflow has no steps yet."));

  for (guint i = 0; i < order->len; i++)
    {
      SkNode *node = g_ptr_array_index (order, i);
      SkNodeState state = GPOINTER_TO_INT (g_hash_table_lookup (states, sk_node_get_id (node)));

      append_step (&page, project, node, i + 1, state, g_ptr_array_index (records, i));
    }

  now_text = format_time (now);
  g_string_append (html, "<footer>");
  /* Translators: %s is a date and time. */
  append_text_printf (html, _("Made with Skele-Code on %s."), now_text);
  g_string_append (html, "</footer>\n</main>\n</body>\n</html>\n");

  return g_string_free (g_steal_pointer (&html), FALSE);
}

/**
 * sk_export_html:
 * @project: a workflow
 * @file: the HTML file to write
 * @error: return location for a #GError
 *
 * Writes @project as one self-contained HTML report: its name, description
 * and picture, and per step in the runner's order its task, state, report,
 * timings, tokens, control flow and output files, with images inline, as
 * the step folders in the workflow's folder hold them. The page loads
 * nothing from anywhere else.
 *
 * Returns: %TRUE when the file was written, or %FALSE with @error set
 */
gboolean
sk_export_html (SkProject  *project,
                GFile      *file,
                GError    **error)
{
  g_autofree char *html = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (project), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  html = sk_export_html_text (project);

  return g_file_replace_contents (file, html, strlen (html), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
