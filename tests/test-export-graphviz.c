/* test-export-graphviz.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A workflow written as Graphviz DOT and drawn as SVG and PNG (DESIGN §11):
 * the text parses, says what the canvas shows, escapes what needs it, and
 * Graphviz draws it.
 */

#define G_LOG_DOMAIN "test-export-graphviz"

#include <string.h>

#include <graphviz/cgraph.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-project.h"
#include "sk-test-util.h"

/* Load feeds High and Low, which branch on it; Each runs per file of Low;
 * Gate waits for approval after High; Inner is a sub-workflow; the names
 * need escaping in DOT, in HTML and in SVG. */
static const char flow_json[] =
  "{\n"
  "  \"process_name\": \"Sales \\\"report\\\" <Q3> & more\",\n"
  "  \"nodes\": {\n"
  "    \"1\": {\"name\": \"Load <sales> & “Grüße”\", \"priors\": [], \"run\": false},\n"
  "    \"2\": {\"name\": \"High \\\"quote\\\" and back\\\\slash\", \"priors\": [\"1\"],\n"
  "          \"skele\": {\"when\": {\"1\": \"output['score'] >= 80 and x < 3\"}}},\n"
  "    \"3\": {\"name\": \"Low\\nsecond line\", \"priors\": [\"1\"],\n"
  "          \"skele\": {\"when\": {\"1\": \"default\"}}},\n"
  "    \"4\": {\"name\": \"Each\", \"priors\": [\"3\"],\n"
  "          \"skele\": {\"foreach\": {\"prior\": \"3\", \"path\": \"files\"}}},\n"
  "    \"5\": {\"name\": \"Gate\", \"priors\": [\"2\"], \"run\": true,\n"
  "          \"skele\": {\"approval\": true, \"x\": 10, \"y\": 20}},\n"
  "    \"6\": {\"name\": \"Inner\", \"priors\": [\"5\", \"4\", \"99\"],\n"
  "          \"skele\": {\"workflow\": \"sub/inner\"}}\n"
  "  }\n"
  "}\n";

static SkProject *
load (const char *json)
{
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load_from_data (json, -1, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static SkProject *
load_flow (void)
{
  SkProject *project = load (flow_json);

  sk_node_set_state (sk_project_get_node (project, "1"), SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (sk_project_get_node (project, "2"), SK_NODE_STATE_SUCCEEDED);
  sk_node_set_state (sk_project_get_node (project, "3"), SK_NODE_STATE_SKIPPED);
  sk_node_set_state (sk_project_get_node (project, "4"), SK_NODE_STATE_FAILED);
  sk_node_set_state (sk_project_get_node (project, "5"), SK_NODE_STATE_AWAITING_APPROVAL);
  sk_node_set_state (sk_project_get_node (project, "6"), SK_NODE_STATE_STALE);

  return project;
}

static const char *
key_of (SkProject  *project,
        const char *id)
{
  return sk_node_get_key (sk_project_get_node (project, id));
}

/* Graphviz prints what it cannot read on stderr; the assertion says that
 * it could. */
static Agraph_t *
parse (const char *dot)
{
  Agraph_t *graph = agmemread (dot);

  g_assert_nonnull (graph);
  g_assert_true (agisdirected (graph));
  return graph;
}

/* A node's label, which must be an HTML-like one. */
static const char *
label_of (Agraph_t   *graph,
          const char *key)
{
  Agnode_t *node = agnode (graph, (char *) key, FALSE);
  char *label;

  g_assert_nonnull (node);
  label = agget (node, (char *) "label");
  g_assert_nonnull (label);
  g_assert_true (aghtmlstr (label));
  return label;
}

static const char *
edge_label (Agraph_t   *graph,
            const char *from,
            const char *to)
{
  Agnode_t *tail = agnode (graph, (char *) from, FALSE);
  Agnode_t *head = agnode (graph, (char *) to, FALSE);
  Agedge_t *edge;

  g_assert_nonnull (tail);
  g_assert_nonnull (head);
  edge = agedge (graph, tail, head, NULL, FALSE);
  g_assert_nonnull (edge);
  return agget (edge, (char *) "label");
}

static void
test_dot_text (void)
{
  g_autoptr(SkProject) project = load_flow ();
  g_autofree char *dot = sk_export_dot (project);
  Agraph_t *graph = parse (dot);
  const char *label;
  int n_edges = 0;

  g_assert_true (g_str_has_prefix (dot, "// Workflow “Sales \"report\" <Q3> & more”, exported from Skele-Code.\n"));
  g_assert_cmpstr (agnameof (graph), ==, "Sales \"report\" <Q3> & more");
  g_assert_cmpstr (agget (graph, (char *) "rankdir"), ==, "TB");
  g_assert_cmpint (agnnodes (graph), ==, 6);

  /* The prior that does not exist gives no edge, and no node. */
  for (Agnode_t *node = agfstnode (graph); node != NULL; node = agnxtnode (graph, node))
    n_edges += agdegree (graph, node, FALSE, TRUE);
  g_assert_cmpint (n_edges, ==, 6);
  g_assert_null (agnode (graph, (char *) "99", FALSE));

  /* The names, escaped for HTML, each on lines of their own. */
  label = label_of (graph, key_of (project, "1"));
  sk_test_assert_contains (label, "<B>Load &lt;sales&gt; &amp; “Grüße”</B>");
  sk_test_assert_contains (label, "#2ec27e");
  sk_test_assert_contains (label, ">Succeeded<");
  g_assert_null (strstr (label, "<TABLE BORDER=\"3\" STYLE=\"rounded\" COLOR=\"#2ec27e\""));
  label = label_of (graph, key_of (project, "2"));
  sk_test_assert_contains (label, "<B>High &quot;quote&quot; and<BR/>back\\slash</B>");
  label = label_of (graph, key_of (project, "3"));
  sk_test_assert_contains (label, "<B>Low<BR/>second line</B>");
  sk_test_assert_contains (label, "#9a9996");
  sk_test_assert_contains (label, ">Skipped<");

  /* The badges and the states' colours and words. */
  label = label_of (graph, key_of (project, "4"));
  sk_test_assert_contains (label, "<B>For each</B>");
  sk_test_assert_contains (label, "#e01b24");
  sk_test_assert_contains (label, ">Failed<");
  label = label_of (graph, key_of (project, "5"));
  sk_test_assert_contains (label, "<B>Approval</B>");
  sk_test_assert_contains (label, ">Waiting for approval<");
  /* Marked to run: a green ring; waiting: an orange outline. */
  sk_test_assert_contains (label, "<TABLE BORDER=\"3\" STYLE=\"rounded\" COLOR=\"#2ec27e\"");
  sk_test_assert_contains (label, "<TABLE BORDER=\"3\" STYLE=\"rounded\" COLOR=\"#ff7800\"");
  label = label_of (graph, key_of (project, "6"));
  sk_test_assert_contains (label, "<B>Workflow</B>");
  sk_test_assert_contains (label, "#e5a50a");
  sk_test_assert_contains (label, ">Needs to run again<");
  g_assert_null (strstr (label_of (graph, key_of (project, "1")), "Approval"));

  /* The conditions on the edges, "default" as the canvas says it. */
  label = edge_label (graph, key_of (project, "1"), key_of (project, "2"));
  g_assert_true (aghtmlstr ((char *) label));
  sk_test_assert_contains (label, "<FONT FACE=\"monospace\" POINT-SIZE=\"9\">output[&#39;score&#39;] &gt;= 80 and x &lt; 3</FONT>");
  label = edge_label (graph, key_of (project, "1"), key_of (project, "3"));
  sk_test_assert_contains (label, "<I>otherwise</I>");
  g_assert_null (strstr (label, "default"));
  label = edge_label (graph, key_of (project, "3"), key_of (project, "4"));
  g_assert_true (label == NULL || *label == '\0');

  agclose (graph);
}

/* Every state in the canvas's light colours and words. */
static void
test_states (void)
{
  static const struct
  {
    SkNodeState  state;
    const char  *color;
    const char  *words;
  } states[] = {
    { SK_NODE_STATE_IDLE, "#c0bfbc", "Not run yet" },
    { SK_NODE_STATE_STALE, "#e5a50a", "Needs to run again" },
    { SK_NODE_STATE_QUEUED, "#99c1f1", "Waiting" },
    { SK_NODE_STATE_RUNNING, "#3584e4", "Running…" },
    { SK_NODE_STATE_SUCCEEDED, "#2ec27e", "Succeeded" },
    { SK_NODE_STATE_FAILED, "#e01b24", "Failed" },
    { SK_NODE_STATE_SKIPPED, "#9a9996", "Skipped" },
    { SK_NODE_STATE_CANCELLED, "#9a9996", "Stopped" },
    { SK_NODE_STATE_UP_TO_DATE, "#8ff0a4", "Up to date" },
    { SK_NODE_STATE_WRITING_CODE, "#9141ac", "Writing code…" },
    { SK_NODE_STATE_NO_CODE, "#c0bfbc", "No code yet" },
    { SK_NODE_STATE_AWAITING_APPROVAL, "#ff7800", "Waiting for approval" },
  };
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autofree char *dot = NULL;
  Agraph_t *graph;

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i + 1);
      g_autofree char *name = g_strdup_printf ("state %u", i);
      g_autoptr(SkNode) node = sk_node_new (id, name);
      g_autoptr(GError) error = NULL;

      sk_node_set_state (node, states[i].state);
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);
    }

  dot = sk_export_dot (project);
  graph = parse (dot);
  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      g_autofree char *key = g_strdup_printf ("state_%u", i);
      g_autofree char *stripe = g_strdup_printf ("BGCOLOR=\"%s\"></TD>", states[i].color);
      g_autofree char *words = g_strdup_printf (">%s</FONT>", states[i].words);
      const char *label = label_of (graph, key);

      sk_test_assert_contains (label, stripe);
      sk_test_assert_contains (label, words);
    }
  agclose (graph);
}

/* A step whose key is empty or another step's still gets a node of its
 * own, and edges reach it. */
static void
test_identifiers (void)
{
  g_autoptr(SkProject) project = load ("{\"process_name\": \"\", \"nodes\": {"
                                       "\"1\": {\"name\": \"A b\"},"
                                       "\"2\": {\"name\": \"a-b\", \"priors\": [\"1\"]},"
                                       "\"3\": {\"name\": \"!!!\", \"priors\": [\"2\", \"2\"]}}}");
  g_autofree char *dot = sk_export_dot (project);
  g_autofree char *named = NULL;
  Agraph_t *graph = parse (dot);

  g_assert_true (g_str_has_prefix (dot, "// A workflow exported from Skele-Code.\n"));
  g_assert_cmpstr (agnameof (graph), ==, "workflow");
  agclose (graph);

  /* A name on two lines stays in its comment line, and a back slash cannot
   * end the graph's quoted name early. */
  sk_project_set_name (project, "two\nlines */ end\\");
  named = sk_export_dot (project);
  g_assert_true (g_str_has_prefix (named, "// Workflow “two lines */ end\\”, exported from Skele-Code.\n// "));
  graph = parse (named);
  g_assert_cmpint (agnnodes (graph), ==, 3);
  g_assert_cmpint (agnedges (graph), ==, 2);
  sk_test_assert_contains (label_of (graph, "a_b"), "<B>A b</B>");
  sk_test_assert_contains (label_of (graph, "step_2"), "<B>a-b</B>");
  sk_test_assert_contains (label_of (graph, "step_3"), "<B>!!!</B>");
  /* edge_label() asserts that the edge is there. */
  g_assert_null (edge_label (graph, "a_b", "step_2"));
  g_assert_null (edge_label (graph, "step_2", "step_3"));
  agclose (graph);
}

/* The text of every <text> element of an SVG document, which must be
 * well-formed XML. */
static void
svg_start (GMarkupParseContext  *context,
           const char           *element,
           const char          **names,
           const char          **values,
           gpointer              user_data,
           GError              **error)
{
  GString *texts = user_data;

  if (g_str_equal (element, "text"))
    g_string_append_c (texts, '\x01');
}

static void
svg_text (GMarkupParseContext  *context,
          const char           *text,
          gsize                 length,
          gpointer              user_data,
          GError              **error)
{
  GString *texts = user_data;

  if (g_strcmp0 (g_markup_parse_context_get_element (context), "text") == 0)
    g_string_append_len (texts, text, length);
}

static char **
svg_texts (GBytes *svg)
{
  static const GMarkupParser parser = { svg_start, NULL, svg_text, NULL, NULL };
  g_autoptr(GString) texts = g_string_new (NULL);
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;
  const char *data = g_bytes_get_data (svg, &length);

  context = g_markup_parse_context_new (&parser, G_MARKUP_IGNORE_QUALIFIED, texts, NULL);
  g_markup_parse_context_parse (context, data, length, &error);
  g_assert_no_error (error);
  g_markup_parse_context_end_parse (context, &error);
  g_assert_no_error (error);

  return g_strsplit (texts->len > 0 ? texts->str + 1 : "", "\x01", -1);
}

static void
test_svg (void)
{
  g_autoptr(SkProject) project = load_flow ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) svg = sk_export_graphviz (project, "svg", &error);
  g_auto(GStrv) texts = NULL;
  const char *data;

  g_assert_no_error (error);
  g_assert_nonnull (svg);
  data = g_bytes_get_data (svg, NULL);
  g_assert_true (g_str_has_prefix (data, "<?xml"));
  sk_test_assert_contains (data, "<svg");
  sk_test_assert_contains (data, "Load &lt;sales&gt; &amp; “Grüße”");
  sk_test_assert_contains (data, "font-family=\"sans-serif");
  sk_test_assert_contains (data, "fill=\"#2ec27e\"");
  sk_test_assert_contains (data, "fill=\"#e01b24\"");
  sk_test_assert_contains (data, "stroke=\"#ff7800\"");

  /* Read back as XML, the texts are the names, states, badges and
   * conditions as written. */
  texts = svg_texts (svg);
  g_assert_true (g_strv_contains ((const char * const *) texts, "Load <sales> & “Grüße”"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "High \"quote\" and"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "back\\slash"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "second line"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "Waiting for approval"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "Approval"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "For each"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "Workflow"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "otherwise"));
  g_assert_true (g_strv_contains ((const char * const *) texts, "output['score'] >= 80 and x < 3"));
}

static guint32
read_be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

static guint32
png_crc (const guint8 *data,
         gsize         length)
{
  guint32 crc = 0xffffffff;

  for (gsize i = 0; i < length; i++)
    {
      crc ^= data[i];
      for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320 & (0u - (crc & 1)));
    }

  return crc ^ 0xffffffff;
}

/* Walks the PNG's chunks, checking each one's length and CRC; returns the
 * size from its header. */
static void
check_png (GBytes *png,
           guint  *width,
           guint  *height)
{
  static const guint8 signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  gsize length;
  const guint8 *data = g_bytes_get_data (png, &length);
  gsize at = sizeof signature;
  gboolean ended = FALSE;
  guint n_data = 0;

  g_assert_cmpuint (length, >, sizeof signature + 25);
  g_assert_cmpmem (data, sizeof signature, signature, sizeof signature);
  g_assert_cmpmem (data + at + 4, 4, "IHDR", 4);
  *width = read_be32 (data + at + 8);
  *height = read_be32 (data + at + 12);

  while (!ended)
    {
      guint32 size;

      g_assert_cmpuint (at + 12, <=, length);
      size = read_be32 (data + at);
      g_assert_cmpuint (at + 12 + size, <=, length);
      g_assert_cmpuint (png_crc (data + at + 4, size + 4), ==, read_be32 (data + at + 8 + size));
      if (memcmp (data + at + 4, "IDAT", 4) == 0)
        n_data++;
      ended = memcmp (data + at + 4, "IEND", 4) == 0;
      at += 12 + size;
    }

  g_assert_cmpuint (at, ==, length);
  g_assert_cmpuint (n_data, >, 0);
}

static void
test_png (void)
{
  g_autoptr(SkProject) project = load_flow ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) png = sk_export_graphviz (project, "png", &error);
  guint width, height;

  g_assert_no_error (error);
  g_assert_nonnull (png);
  check_png (png, &width, &height);
  g_test_message ("PNG of six steps: %u × %u", width, height);
  /* Six steps on four ranks, each box at least 168 points wide. */
  g_assert_cmpuint (width, >, 300);
  g_assert_cmpuint (height, >, 300);
}

static void
test_dot_bytes (void)
{
  g_autoptr(SkProject) project = load_flow ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = sk_export_graphviz (project, "dot", &error);
  g_autofree char *dot = sk_export_dot (project);

  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), dot, strlen (dot));
}

static void
test_unknown_format (void)
{
  g_autoptr(SkProject) project = load_flow ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = sk_export_graphviz (project, "pdf", &error);

  g_assert_null (bytes);
  g_assert_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_FORMAT);
  sk_test_assert_contains (error->message, "“pdf”");
  sk_test_assert_contains (error->message, "dot, svg, png");
  g_clear_error (&error);

  /* The format is named exactly, as Graphviz names it. */
  bytes = sk_export_graphviz (project, "SVG", &error);
  g_assert_null (bytes);
  g_assert_error (error, SK_EXPORT_ERROR, SK_EXPORT_ERROR_FORMAT);
}

static void
test_empty (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(SkNode) node = NULL;
  g_autofree char *dot = NULL;
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) texts = NULL;
  Agraph_t *graph;
  guint width, height;

  sk_project_set_name (project, "Nothing yet");
  dot = sk_export_dot (project);
  graph = parse (dot);
  g_assert_cmpint (agnnodes (graph), ==, 0);
  agclose (graph);

  svg = sk_export_graphviz (project, "svg", &error);
  g_assert_no_error (error);
  texts = svg_texts (svg);
  g_assert_cmpuint (g_strv_length (texts), ==, 0);

  png = sk_export_graphviz (project, "png", &error);
  g_assert_no_error (error);
  check_png (png, &width, &height);
  g_assert_cmpuint (width, >, 0);
  g_assert_cmpuint (height, >, 0);

  /* A step without a name is drawn too, with an empty first line. */
  node = sk_node_new ("1", "");
  sk_project_add_node (project, node, &error);
  g_assert_no_error (error);
  g_clear_pointer (&svg, g_bytes_unref);
  svg = sk_export_graphviz (project, "svg", &error);
  g_assert_no_error (error);
  g_clear_pointer (&texts, g_strfreev);
  texts = svg_texts (svg);
  g_assert_true (g_strv_contains ((const char * const *) texts, "Not run yet"));
}

/* The text that Graphviz's own program draws, where it is installed. */
static void
test_dot_program (void)
{
  g_autofree char *program = g_find_program_in_path ("dot");
  g_autoptr(SkProject) project = load_flow ();
  g_autofree char *dot = sk_export_dot (project);
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;

  if (program == NULL)
    {
      g_test_skip ("Graphviz’s dot program is not installed");
      return;
    }

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              &error, program, "-Tsvg", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, dot, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  g_assert_cmpstr (err, ==, "");
  sk_test_assert_contains (out, "<svg");
  sk_test_assert_contains (out, "Load &lt;sales&gt; &amp; “Grüße”");
}

static void
test_large (void)
{
  g_autoptr(SkProject) project = sk_project_new (NULL);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTimer) timer = NULL;
  g_autofree char *dot = NULL;
  Agraph_t *graph;
  double dot_seconds;

  /* A tree, in which every step has a step before it as its prior, with
   * a join from its neighbour at every tenth step and a condition on that
   * edge. */
  for (guint i = 1; i <= 1000; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *name = g_strdup_printf ("Step number %u", i);
      g_autoptr(SkNode) node = sk_node_new (id, name);
      g_autoptr(GPtrArray) priors = g_ptr_array_new_with_free_func (g_free);

      if (i > 1)
        g_ptr_array_add (priors, g_strdup_printf ("%u", i / 2));
      if (i > 1 && i % 10 == 0)
        g_ptr_array_add (priors, g_strdup_printf ("%u", i - 1));
      g_ptr_array_add (priors, NULL);
      sk_node_set_priors (node, (const char * const *) priors->pdata);
      if (i > 1 && i % 10 == 0)
        sk_node_set_condition (node, g_ptr_array_index (priors, 1), "output['n'] > 1");
      sk_node_set_state (node, (SkNodeState) (i % 12));
      sk_project_add_node (project, node, &error);
      g_assert_no_error (error);
    }

  timer = g_timer_new ();
  dot = sk_export_dot (project);
  dot_seconds = g_timer_elapsed (timer, NULL);
  graph = parse (dot);
  g_assert_cmpint (agnnodes (graph), ==, 1000);
  g_assert_cmpint (agnedges (graph), ==, 999 + 100);
  agclose (graph);

  g_timer_start (timer);
  svg = sk_export_graphviz (project, "svg", &error);
  g_assert_no_error (error);
  g_test_message ("1,000 steps: DOT in %.3f s (%zu bytes), SVG in %.2f s (%zu bytes)",
                  dot_seconds, strlen (dot), g_timer_elapsed (timer, NULL), g_bytes_get_size (svg));
  sk_test_assert_contains (g_bytes_get_data (svg, NULL), "Step number 1000");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/export-graphviz/dot-text", test_dot_text);
  g_test_add_func ("/export-graphviz/states", test_states);
  g_test_add_func ("/export-graphviz/identifiers", test_identifiers);
  g_test_add_func ("/export-graphviz/svg", test_svg);
  g_test_add_func ("/export-graphviz/png", test_png);
  g_test_add_func ("/export-graphviz/dot-bytes", test_dot_bytes);
  g_test_add_func ("/export-graphviz/unknown-format", test_unknown_format);
  g_test_add_func ("/export-graphviz/empty", test_empty);
  g_test_add_func ("/export-graphviz/dot-program", test_dot_program);
  g_test_add_func ("/export-graphviz/large", test_large);

  return g_test_run ();
}
