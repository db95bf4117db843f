/* test-mermaid-import.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading a Mermaid flowchart as a workflow (DESIGN §11). The groups follow
 * the Mermaid project's own flowchart parser specs (flow-arrows,
 * flow-comments, …, subgraph): for each, the cases that matter to a
 * workflow, restated as the steps and priors that must result. Then the
 * comment block of a task-daemon seed, Skele-Code's own "skele" entries,
 * and input that is broken or hostile.
 */

#define G_LOG_DOMAIN "test-mermaid-import"

#include <string.h>

#include "sk-control-flow.h"
#include "sk-export.h"
#include "sk-project.h"

/* The steps in order as "name<prior name,prior name", joined by "; ". */
static char *
describe (SkProject *project)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (project)); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      const char * const *priors = sk_node_get_priors (node);

      if (i > 0)
        g_string_append (out, "; ");
      g_string_append (out, sk_node_get_name (node));
      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = sk_project_get_node (project, priors[j]);

          g_string_append_c (out, j == 0 ? '<' : ',');
          g_string_append (out, prior != NULL ? sk_node_get_name (prior) : priors[j]);
        }
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Imports @text, which must succeed, and returns its description; the
 * notes go to @notes when it is given. */
static char *
import_describe (const char *text,
                 GPtrArray  *notes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = sk_import_mermaid (text, -1, notes, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  g_assert_null (sk_project_get_folder (project));

  return describe (project);
}

static void
assert_import (const char *text,
               const char *expected)
{
  g_autofree char *described = import_describe (text, NULL);

  g_assert_cmpstr (described, ==, expected);
}

/* Imports @text and checks that no note was made. */
static void
assert_import_quiet (const char *text,
                     const char *expected)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *described = import_describe (text, notes);

  g_assert_cmpstr (described, ==, expected);
  if (notes->len > 0)
    g_error ("unexpected note: %s", (char *) notes->pdata[0]);
}

static gboolean
notes_have (GPtrArray  *notes,
            const char *text)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), text) != NULL)
      return TRUE;
  return FALSE;
}

static void
assert_note (GPtrArray  *notes,
             const char *text)
{
  if (!notes_have (notes, text))
    {
      g_autoptr(GString) all = g_string_new (NULL);

      for (guint i = 0; i < notes->len; i++)
        g_string_append_printf (all, "\n  %s", (char *) g_ptr_array_index (notes, i));
      g_error ("no note contains “%s”; the notes are:%s", text, all->str);
    }
}

static void
assert_parse_error (const char   *text,
                    gssize        length,
                    SkExportError code,
                    const char   *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SkProject) project = sk_import_mermaid (text, length, notes, &error);

  g_assert_null (project);
  g_assert_error (error, SK_EXPORT_ERROR, (int) code);
  if (message_part != NULL && strstr (error->message, message_part) == NULL)
    g_error ("“%s” is not in “%s”", message_part, error->message);
}

/* flow-arrows: every kind of link makes the right-hand node need the
 * left-hand one. */
static void
test_arrows (void)
{
  static const char * const links[] = {
    "-->", "---", "-.->", "-.-", "==>", "===", "--o", "--x", "---->",
    "-...->", "====>", "-----", "-..-", "====", "==o", "==x", "-.-o", "-.-x",
  };
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *both = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_autofree char *spaced = g_strdup_printf ("graph TD;\nA %s B;", links[i]);
      g_autofree char *tight = g_strdup_printf ("flowchart LR\nA%sB", links[i]);

      assert_import_quiet (spaced, "A; B<A");
      assert_import_quiet (tight, "A; B<A");
    }

  /* Links with a head at both ends are read left to right, with a note. */
  both = import_describe ("graph TD;\nA <--> B;\nC o--o D\nE x--x F\nG <==> H", notes);
  g_assert_cmpstr (both, ==, "A; B<A; C; D<C; E; F<E; G; H<G");
  assert_note (notes, "Line 2: the link between “A” and “B” points both ways");
}

/* flow-comments: `%%` lines are left out wherever they are. */
static void
test_comments (void)
{
  assert_import_quiet ("graph TD;\n%% Comment\n A-->B;", "A; B<A");
  assert_import_quiet ("%% Comment\ngraph TD;\n A-->B;", "A; B<A");
  assert_import_quiet ("graph TD;\n A-->B\n %% Comment at the end\n", "A; B<A");
  assert_import_quiet ("graph TD;\n A-->B\n%% Comment", "A; B<A");
  assert_import_quiet ("graph TD;\n\n\n %% Comment\n A-->B;\n\n", "A; B<A");
  /* A comment that looks like code is still a comment. */
  assert_import_quiet ("graph TD;\n A-->B\n%% B-->C\n %% C[not a node]", "A; B<A");
  /* Directives and a YAML front matter come before the header. */
  assert_import_quiet ("%%{init: {\"theme\": \"dark\"}}%%\ngraph TD\nA-->B", "A; B<A");
  assert_import_quiet ("---\ntitle: Sales\n---\nflowchart LR\nA-->B", "A; B<A");
  /* A comment after a statement on its line. */
  assert_import_quiet ("graph TD\nA-->B %% why\nB-->C", "A; B<A; C<B");
}

/* flow-direction: every direction, and `direction` inside a subgraph, is
 * read and ignored. */
static void
test_direction (void)
{
  static const char * const headers[] = {
    "graph", "graph TD", "graph TB", "graph BT", "graph LR", "graph RL",
    "flowchart", "flowchart TD", "flowchart RL", "flowchart-elk TD",
  };
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *nested = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    {
      g_autofree char *text = g_strdup_printf ("%s\na --> b", headers[i]);

      assert_import_quiet (text, "a; b<a");
    }

  nested = import_describe ("flowchart TB\n"
                            "  subgraph A\n"
                            "    direction BT\n"
                            "    b --> a\n"
                            "    subgraph B\n"
                            "      direction LR\n"
                            "      c\n"
                            "    end\n"
                            "  end\n", notes);
  g_assert_cmpstr (nested, ==, "b; a<b; c");
  assert_note (notes, "Line 2: subgraphs were flattened");
  g_assert_cmpuint (notes->len, ==, 1);
}

/* flow-edges: edge ids, both forms of labels, long links, repeats. */
static void
test_edges (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *twice = NULL;

  assert_import_quiet ("flowchart TD;\nA e1@--> B;", "A; B<A");
  assert_import_quiet ("flowchart TD;\nA e1@==> B;\nB id2@-.-> C", "A; B<A; C<B");
  assert_import ("graph TD;\nA -- text --> B;", "A; B<A");
  assert_import ("graph TD;\nA-->|text|B;", "A; B<A");
  assert_import ("graph TD;\nA-. text .->B", "A; B<A");
  assert_import ("graph TD;\nA== text ==>B", "A; B<A");
  assert_import ("flowchart TD;\nA e1@-- label --> B;", "A; B<A");
  assert_import ("graph TD;\nA -- Label ------- B;", "A; B<A");
  assert_import ("graph TD;\nA -- Label ---x B;", "A; B<A");
  /* Keywords as the text of a link. */
  assert_import ("graph TD;\nA -- end --> B;\nB -- subgraph --> C", "A; B<A; C<B");

  /* The same link twice gives one prior. */
  twice = import_describe ("graph TD;A---|This is the 123 s text|B;\nA---|This is the second edge|B;\nA-->B",
                           notes);
  g_assert_cmpstr (twice, ==, "A; B<A");
  assert_note (notes, "Line 1: link labels such as “This is the 123 s text” were left out");
  g_assert_cmpuint (notes->len, ==, 1);
}

/* flow-lines: linkStyle and interpolation change only the look. */
static void
test_lines (void)
{
  assert_import_quiet ("graph TD\nA-->B\nlinkStyle default interpolate basis", "A; B<A");
  assert_import_quiet ("graph TD\nA-->B\nA-->C\nlinkStyle 0,1 stroke:#ff3,stroke-width:4px;",
                       "A; B<A; C<A");
  assert_import_quiet ("graph TD;A-->B;\nA-.->C\nA==>D", "A; B<A; C<A; D<A");
}

/* flow-md-string: markdown strings become plain names. */
static void
test_md_string (void)
{
  assert_import ("flowchart\n"
                 "A[\"`The cat in **the** hat`\"]-- \"`The *bat* in the chat`\" -->B[\"The dog in the hog\"] -- \"The rat in the mat\" -->C;",
                 "The cat in the hat; The dog in the hog<The cat in the hat; C<The dog in the hog");
  assert_import ("flowchart LR\n"
                 "subgraph \"One\"\n  a(\"`The **cat**\n  in the hat`\") -- \"1o\" --> b{{\"`The **dog** in the hog`\"}}\nend\n"
                 "subgraph \"`**Two**`\"\n  c\nend",
                 "The cat in the hat; The dog in the hog<The cat in the hat; c");
}

/* flow-node-data: the `@{ … }` form, alone and with other shapes. */
static void
test_node_data (void)
{
  assert_import_quiet ("flowchart TB\n      D@{ shape: rounded}", "D");
  assert_import_quiet ("flowchart TB\n      D@{ shape: rounded } & E", "D; E");
  assert_import_quiet ("flowchart TB\n      D@{ shape: rounded } --> E", "D; E<D");
  assert_import_quiet ("flowchart TB\n D@{ shape: rounded } & E@{ shape: rounded } --> F & G@{ shape: rounded }",
                       "D; E; F<D,E; G<D,E");
  assert_import_quiet ("flowchart TB\n      D@{shape: rounded , label: \"DD\"}", "DD");
  assert_import_quiet ("flowchart TB\n      A --> D@{\n        shape: circle\n        other: \"clock\"\n     }\n\n",
                       "A; D<A");
  assert_import_quiet ("flowchart TB\n A[hello]\n B@{\n shape: circle\n other: \"clock\"\n }\n C[Hello]@{\n shape: circle\n other: \"clock\"\n }",
                       "hello; B; Hello 2");
  assert_import_quiet ("flowchart TB\n      A@{\n        label: \"This is }\"\n        other: \"clock\"\n     }\n",
                       "This is }");
  assert_import_quiet ("flowchart TB\n      A@{\n        label: |\n          This is a\n          multiline string\n        other: \"clock\"\n     }\n",
                       "This is a multiline string");
  assert_import_quiet ("flowchart TB\n A@{ shape: rect, label: plain words, icon: x } --> B",
                       "plain words; B<plain words");
}

/* flow-singlenode: every shape, and the ids Mermaid accepts. */
static void
test_singlenode (void)
{
  static const struct { const char *node; const char *name; } shapes[] = {
    { "A", "A" },
    { "A[text]", "text" }, { "A(text)", "text" }, { "A([text])", "text" },
    { "A[[text]]", "text" }, { "A[(text)]", "text" }, { "A((text))", "text" },
    { "A(((text)))", "text" }, { "A>text]", "text" }, { "A{text}", "text" },
    { "A{{text}}", "text" }, { "A[/text/]", "text" }, { "A[\\text\\]", "text" },
    { "A[/text\\]", "text" }, { "A[\\text/]", "text" },
    { "A@{ shape: rect, label: \"text\" }", "text" },
    { "A[\"quoted [text]\"]", "quoted [text]" },
    { "a{A <br> end}", "A end" }, { "a{{A <br/> end}}", "A end" },
    { "a(((A <br> end)))", "A end" }, { "a{A}   ", "A" },
  };
  static const char * const ids[] = {
    "id1", "1", "1id", "i-d", "i_d", "a-end-node", "a.end.node", "a_end_node",
    "node_graph", "node.style", "node-class", "default.node", "#node", "node#",
    ".node", "node.", "\\node", "*node", "node/", "_node", "vnode", "Ünïcode",
  };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph TD;%s;", shapes[i].node);
      g_autofree char *linked = g_strdup_printf ("graph TD\n%s --> B", shapes[i].node);
      g_autofree char *expected = g_strdup_printf ("%s; B<%s", shapes[i].name, shapes[i].name);

      assert_import_quiet (text, shapes[i].name);
      assert_import_quiet (linked, expected);
    }

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph TD; %s --> A", ids[i]);
      g_autofree char *expected = g_strdup_printf ("%s; A<%s", ids[i], ids[i]);

      assert_import_quiet (text, expected);
    }

  /* Several nodes in one statement, and a node alone with spaces. */
  assert_import_quiet ("graph TD;A ;B[b] ; C", "A; b; C");
}

/* flow-style: classDef, class, style, `:::` and click change the look or
 * the behaviour in a browser only. */
static void
test_style (void)
{
  assert_import_quiet ("graph TD\n"
                       "A-->B\n"
                       "classDef exClass font-style:bold;\n"
                       "classDef default fill:#f9f,stroke:#333,stroke-width:4px;\n"
                       "class A exClass\n"
                       "class A,B exClass\n"
                       "style B fill:#f00\n"
                       "style A background:#fff,border:1px solid red;\n"
                       "A:::exClass --> C[text]:::exClass\n"
                       "click A callback \"Tooltip\"\n"
                       "click B \"https://example.com\" _blank\n"
                       "accTitle: A title\n"
                       "accDescr {\n  spans; lines\n}\n",
                       "A; B<A; text<A");
  /* A flowchart of styles alone has no step. */
  assert_parse_error ("graph TD;style Q background:#fff;", -1, SK_EXPORT_ERROR_EMPTY, NULL);
}

/* flow-text: what labels may hold. */
static void
test_text (void)
{
  assert_import ("graph TD;A--x|text including space|B;", "A; B<A");
  assert_import ("graph TD;A--x|text with / should work|B;", "A; B<A");
  assert_import ("graph TD;A--text including URL space and send-->B;", "A; B<A");
  assert_import ("graph TD;A-- text including graph space and v --xB[blav]", "A; blav<A");
  assert_import ("graph TD;A--xv(my text)", "A; my text<A");
  assert_import ("graph TD;A-- test text with == -->B;", "A; B<A");
  assert_import ("graph TD;A-. test text with == .->B;", "A; B<A");
  assert_import ("graph TD;A== test text with - ==>B;", "A; B<A");
  assert_import_quiet ("graph TD;A-->C(Chimpansen hoppar)", "A; Chimpansen hoppar<A");
  assert_import_quiet ("graph TD;A-->C{Chimpansen hoppar åäö-ÅÄÖ};", "A; Chimpansen hoppar åäö-ÅÄÖ<A");
  assert_import_quiet ("graph TD;A-->C(Chimpansen hoppar åäö  <br> -  ÅÄÖ)", "A; Chimpansen hoppar åäö - ÅÄÖ<A");
  assert_import_quiet ("graph TD;A_node-->B[/This node has a / as text/];", "A_node; This node has a / as text<A_node");
  assert_import_quiet ("graph TD;A_node-->B[\\This node has a \\ as text\\];", "A_node; This node has a \\ as text<A_node");
  assert_import_quiet ("graph TD; A[Object&#40;foo,bar&#41;]-->B(Thing);", "Object(foo,bar); Thing<Object(foo,bar)");
  assert_import_quiet ("graph TD; A[\"#quot;Hi#quot; #35;1 #9829;\"]", "\"Hi\" #1 ♥");
  assert_import_quiet ("graph TD;V-->a[v]", "V; v 2<V");
  assert_import_quiet ("graph TD;A-->B[\"text with ; and --> inside\"]", "A; text with ; and --> inside<A");
}

/* flow-vertice-chaining: chains and `&` groups make every pair. */
static void
test_vertice_chaining (void)
{
  assert_import_quiet ("graph TD\nA-->B-->C", "A; B<A; C<B");
  assert_import_quiet ("graph TD\nA-->B & C", "A; B<A; C<A");
  assert_import_quiet ("graph TD\nA & B --> C", "A; B; C<A,B");
  assert_import_quiet ("graph TD\nA & B --> C & D", "A; B; C<A,B; D<A,B");
  assert_import_quiet ("graph TD\nA --> B & C --> D", "A; B<A; C<A; D<B,C");
  assert_import_quiet ("graph TD\nA[a] & B[b] --> C[c] & D[d]", "a; b; c<a,b; d<a,b");
}

/* subgraph: nested subgraphs with every kind of title; their nodes are
 * ordinary steps and links to a subgraph itself are left out. */
static void
test_subgraph (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *linked = NULL;

  assert_import ("graph TB\nsubgraph One\n\ta1-->a2\nend", "a1; a2<a1");
  assert_import ("graph TB\nsubgraph One\n\ta1-->a2-->a3\nend", "a1; a2<a1; a3<a2");
  assert_import ("graph TB\nsubgraph \"Some Title\"\n\ta1-->a2\nend", "a1; a2<a1");
  assert_import ("graph TB\nsubgraph some-id[Some Title]\n\ta1-->a2\nend", "a1; a2<a1");
  assert_import ("graph TB\nsubgraph Some Title\n\ta1-->a2\nend", "a1; a2<a1");
  assert_import ("graph TD\n A[Christmas] -->|Get money| B(Go shopping)\n subgraph 1test\n A\n end",
                 "Christmas; Go shopping<Christmas");
  assert_import ("graph TD;A-->B;subgraph myTitle;c-->d;end;", "A; B<A; c; d<c");
  assert_import ("graph TD;A-->B;subgraph \"title in quotes\";c-->d;end;", "A; B<A; c; d<c");
  assert_import ("graph TD;A-->B;subgraph a-b-c;c-->d;end;", "A; B<A; c; d<c");
  assert_import ("graph TD;A-->B;subgraph uid1[text of doom];c-->d;end;", "A; B<A; c; d<c");
  assert_import ("graph TD;A-->B;subgraph uid2[\"text of doom\"];c-->d;end;", "A; B<A; c; d<c");
  assert_import ("graph TD\nsubgraph outer\n subgraph inner\n  x --> y\n end\n y --> z\nend\nz --> w",
                 "x; y<x; z<y; w<z");

  linked = import_describe ("flowchart TB\n"
                            "  c1-->a2\n"
                            "  subgraph one\n    a1-->a2\n  end\n"
                            "  subgraph two\n    b1-->b2\n  end\n"
                            "  one --> two\n"
                            "  two --> c2\n", notes);
  g_assert_cmpstr (linked, ==, "c1; a2<c1,a1; a1; b1; b2<b1; c2");
  assert_note (notes, "Line 9: the link from “one” to “two” joins a subgraph, not a step, so it was left out.");
  assert_note (notes, "Line 10: the link from “two” to “c2” joins a subgraph");
}

/* A task-daemon seed: its config block gives tasks, a for-each, an
 * approval gate and conditions; the link back to the start is left out. */
static const char seed[] =
  "graph TD\n"
  "    A[Load Orders] --> B[List Invoices]\n"
  "    B --> C[[Each: Check Invoice]]\n"
  "    C --> D[Sum Checks]\n"
  "    D --> E{Total OK?}\n"
  "    E -->|\"output.total >= 100 && !output.flagged\"| F[Ship]\n"
  "    E -->|\"output.status === 'hold' || output.items.length > 3\"| G(Manual Review)\n"
  "    E -->|default| H[Refuse]\n"
  "    F --> I[Invoice Customer]\n"
  "    G --> I\n"
  "    H --> J{Try again?}\n"
  "    J -->|\"output.retry\"| A\n"
  "    J -->|default| K[Archive]\n"
  "\n"
  "%% === WORKFLOW_CONFIG ===\n"
  "%% @workflow: {\"name\": \"Orders\", \"description\": \"Checks and ships orders\"}\n"
  "%% @A: {\n"
  "%%   \"stepType\": \"task\",\n"
  "%%   \"execution\": \"automated\",\n"
  "%%   \"prompt\": \"Read orders.csv. Output: {orders: []}\"\n"
  "%% }\n"
  "%% @C: {\n"
  "%%   \"stepType\": \"foreach\",\n"
  "%%   \"itemsPath\": \"output.invoices\",\n"
  "%%   \"itemVariable\": \"invoice\",\n"
  "%%   \"prompt\": \"Check {{invoice.number}}\"\n"
  "%% }\n"
  "%% @E: { \"stepType\": \"decision\" }\n"
  "%% @G: {\n"
  "%%   \"stepType\": \"task\",\n"
  "%%   \"execution\": \"manual\",\n"
  "%%   \"prompt\": \"Look at the order.\"\n"
  "%% }\n"
  "%% @I: { \"stepType\": \"flow\", \"flowId\": \"billing\" }\n"
  "%% @J: { \"stepType\": \"decision\" }\n"
  "%% @Z: { \"prompt\": \"no such node\" }\n"
  "%% @K: { \"prompt\": \"not closed\"\n"
  "%% === END_CONFIG ===\n";

static void
test_seed (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = sk_import_mermaid (seed, -1, notes, &error);
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *described = NULL;
  const char *prior = NULL;
  const char *path = NULL;
  SkNode *node;

  g_assert_no_error (error);
  described = describe (project);
  g_assert_cmpstr (described, ==,
                   "Load Orders; List Invoices<Load Orders; Each: Check Invoice<List Invoices; "
                   "Sum Checks<Each: Check Invoice; Total OK?<Sum Checks; Ship<Total OK?; "
                   "Manual Review<Total OK?; Refuse<Total OK?; Invoice Customer<Ship,Manual Review; "
                   "Try again?<Refuse; Archive<Try again?");
  g_assert_cmpstr (sk_project_get_name (project), ==, "Orders");
  g_assert_cmpstr (sk_project_get_description (project), ==, "Checks and ships orders");

  /* Steps are numbered in the order they first appear. */
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "1")), ==, "Load Orders");
  g_assert_cmpstr (sk_node_get_name (sk_project_get_node (project, "11")), ==, "Archive");
  g_assert_null (sk_project_get_node (project, "12"));

  node = sk_project_get_node (project, "1");
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "Read orders.csv. Output: {orders: []}");
  g_assert_false (sk_node_get_approval (node));

  node = sk_project_get_node (project, "3");
  g_assert_true (sk_node_get_foreach (node, &prior, &path));
  g_assert_cmpstr (prior, ==, "2");
  g_assert_cmpstr (path, ==, "invoices");
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "Check {{invoice.number}}");

  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "6"), "5"), ==,
                   "output[\"total\"] >= 100 and not output[\"flagged\"]");
  node = sk_project_get_node (project, "7");
  g_assert_cmpstr (sk_node_get_condition (node, "5"), ==,
                   "output[\"status\"] == 'hold' or len(output[\"items\"]) > 3");
  g_assert_true (sk_node_get_approval (node));
  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "8"), "5"), ==, SK_CONTROL_FLOW_DEFAULT);
  g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "11"), "10"), ==, SK_CONTROL_FLOW_DEFAULT);
  /* The edges from ordinary steps carry no condition. */
  g_assert_null (sk_node_get_condition (sk_project_get_node (project, "9"), "6"));

  assert_note (notes, "Line 12: the link from “Try again?” to “Load Orders” would close a cycle, so it was left out.");
  assert_note (notes, "Line 34: “Invoice Customer” runs another flow; sub-workflows are not imported");
  assert_note (notes, "Line 36: the configuration names “Z”, which is no node of the flowchart");
  assert_note (notes, "Line 37: the configuration of “K” is not a valid JSON object");
  g_assert_cmpuint (notes->len, ==, 4);

  /* What was imported is a workflow that can run. */
  problems = sk_project_validate (project);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        g_error ("unexpected problem: %s", problem->message);
    }
}

/* The seed's JavaScript-style conditions become Python where that is
 * simple; the rest is kept as written. */
static void
test_conditions (void)
{
  static const struct { const char *label; const char *condition; } cases[] = {
    { "output.score >= 80", "output[\"score\"] >= 80" },
    { "output.a.b_c === true", "output[\"a\"][\"b_c\"] == True" },
    { "output.a !== null && output.b === false", "output[\"a\"] != None and output[\"b\"] == False" },
    { "!output.done||output.n<2", "not output[\"done\"] or output[\"n\"]<2" },
    { "output.s === 'a && b'", "output[\"s\"] == 'a && b'" },
    { "output.files.length > 0", "len(output[\"files\"]) > 0" },
    { "output[\"x\"] in ('a', 'b')", "output[\"x\"] in ('a', 'b')" },
    { "myoutput.x", "myoutput.x" },
    { "default", "default" },
    { "DEFAULT", "default" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph TD\n"
                                               "D{Decide} -->|\"%s\"| S[Step]\n"
                                               "%%%% === WORKFLOW_CONFIG ===\n"
                                               "%%%% @D: {\"stepType\": \"decision\"}\n"
                                               "%%%% === END_CONFIG ===\n",
                                               cases[i].label);
      g_autoptr(GError) error = NULL;
      g_autoptr(SkProject) project = sk_import_mermaid (text, -1, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (sk_node_get_condition (sk_project_get_node (project, "2"), "1"), ==,
                       cases[i].condition);
    }
}

/* Skele-Code's own export writes each step's JSON under "skele", with the
 * identifier it had; importing gives the same step back, with the same
 * identifier when every step names a distinct one, else renumbered. */
static void
test_skele_entries (void)
{
  static const char text[] =
    "flowchart TD\n"
    "  load[\"Load sales\"] --> check{\"Check\"}\n"
    "  check -->|\"output['ok']\"| accept[\"Accept\"]\n"
    "  check --> each[\"Each file\"]\n"
    "%% === WORKFLOW_CONFIG ===\n"
    "%% @workflow: {\"name\": \"Sales\"}\n"
    "%% @load: {\"id\": \"7\", \"skele\": {\"description\": \"d\", \"run\": false,\n"
    "%%   \"input\": {\"text\": \"load it\", \"files\": [\"sales.csv\"]},\n"
    "%%   \"skele\": {\"x\": 10, \"y\": 20, \"network\": true}}}\n"
    "%% @check: {\"id\": \"8\", \"stepType\": \"decision\", \"skele\": {\"input\": {\"text\": \"decide\"}}}\n"
    "%% @accept: {\"id\": \"9\", \"stepType\": \"task\", \"execution\": \"automated\",\n"
    "%%   \"skele\": {\"input\": {\"text\": \"go\"}, \"priors\": [\"42\"], \"name\": \"ignored\",\n"
    "%%   \"skele\": {\"when\": {\"8\": \"output['ok']\"}, \"approval\": true, \"custom\": [1, 2]}}}\n"
    "%% @each: {\"id\": \"3\", \"skele\": {\"skele\": {\"foreach\": {\"prior\": \"check\", \"path\": \"files\"}}}}\n"
    "%% === END_CONFIG ===\n";
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = sk_import_mermaid (text, -1, notes, &error);
  g_autoptr(JsonObject) json = NULL;
  g_autofree char *described = NULL;
  const char *prior = NULL;
  const char *path = NULL;
  SkNode *node;
  double x, y;

  g_assert_no_error (error);
  described = describe (project);
  g_assert_cmpstr (described, ==, "Load sales; Check<Load sales; Accept<Check; Each file<Check");
  g_assert_cmpstr (sk_project_get_name (project), ==, "Sales");
  g_assert_cmpuint (notes->len, ==, 0);

  node = sk_project_get_node (project, "7");
  g_assert_cmpstr (sk_node_get_description (node), ==, "d");
  g_assert_false (sk_node_get_run (node));
  g_assert_cmpstr (sk_node_get_input_text (node), ==, "load it");
  g_assert_cmpstr (sk_node_get_input_files (node)[0], ==, "sales.csv");
  g_assert_true (sk_node_get_position (node, &x, &y));
  g_assert_cmpfloat (x, ==, 10);
  g_assert_cmpfloat (y, ==, 20);
  g_assert_true (sk_node_get_network (node));

  node = sk_project_get_node (project, "9");
  g_assert_cmpstr (sk_node_get_name (node), ==, "Accept");
  g_assert_cmpstr (sk_node_get_priors (node)[0], ==, "8");
  g_assert_null (sk_node_get_priors (node)[1]);
  g_assert_cmpstr (sk_node_get_condition (node, "8"), ==, "output['ok']");
  g_assert_true (sk_node_get_approval (node));
  json = sk_node_to_json (node);
  g_assert_nonnull (json_object_get_array_member (json_object_get_object_member (json, "skele"), "custom"));

  /* A prior named by its Mermaid id is found too. */
  node = sk_project_get_node (project, "3");
  g_assert_true (sk_node_get_foreach (node, &prior, &path));
  g_assert_cmpstr (prior, ==, "8");
  g_assert_cmpstr (path, ==, "files");
  g_assert_null (sk_node_get_condition (node, "8"));

  /* Without the identifier of one step, all are numbered anew, and what
   * named the old ones follows. */
  {
    g_autoptr(GString) partial = g_string_new (text);
    g_autoptr(SkProject) renumbered = NULL;

    g_assert_cmpuint (g_string_replace (partial, "{\"id\": \"3\", ", "{", 1), ==, 1);
    renumbered = sk_import_mermaid (partial->str, -1, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (sk_node_get_name (sk_project_get_node (renumbered, "1")), ==, "Load sales");
    node = sk_project_get_node (renumbered, "3");
    g_assert_cmpstr (sk_node_get_name (node), ==, "Accept");
    g_assert_cmpstr (sk_node_get_condition (node, "2"), ==, "output['ok']");
    node = sk_project_get_node (renumbered, "4");
    g_assert_true (sk_node_get_foreach (node, &prior, &path));
    g_assert_cmpstr (prior, ==, "2");
  }
}

/* Names give distinct folders: a repeated name gets a number, a name
 * without letters or digits gives way to the Mermaid id. */
static void
test_names (void)
{
  assert_import_quiet ("graph TD\nA[Load] --> B[Load] --> C[load!] --> D[Load 2]",
                       "Load; Load 2<Load; load! 3<Load 2; Load 2 2<load! 3");
  assert_import_quiet ("graph TD\nA[\"!!!\"] --> B[\"   \"]", "A; B<A");
  assert_import_quiet ("graph TD\n# --> *", "Step; Step 2<Step");
  /* The last label given to a node is its name. */
  assert_import_quiet ("graph TD\nA --> B\nA[First]\nA[Second]", "Second; B<Second");
}

static void
test_cycles (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *described = import_describe ("graph LR\nA --> B --> C --> A\nC --> C\nB --> D ~~~ A\n", notes);

  g_assert_cmpstr (described, ==, "A; B<A; C<B; D<B");
  assert_note (notes, "Line 2: the link from “C” to “A” would close a cycle, so it was left out.");
  assert_note (notes, "Line 3: the link from “C” to “C” would close a cycle");
  assert_note (notes, "Line 4: the invisible link from “D” to “A”");
  g_assert_cmpuint (notes->len, ==, 3);
}

/* Notes come in the order of their lines, whatever found them. */
static void
test_note_order (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *described = import_describe ("flowchart LR\n"
                                                "    A[Start] --> B{Is it?}\n"
                                                "    B -->|Yes| C[OK]\n"
                                                "    C --> D[Rethink]\n"
                                                "    D --> B\n"
                                                "    }}} oops\n", notes);

  g_assert_cmpstr (described, ==, "Start; Is it?<Start; OK<Is it?; Rethink<OK");
  g_assert_cmpuint (notes->len, ==, 3);
  g_assert_true (g_str_has_prefix (notes->pdata[0], "Line 3: link labels such as “Yes”"));
  g_assert_true (g_str_has_prefix (notes->pdata[1], "Line 5: the link from “Rethink” to “Is it?” would close a cycle"));
  g_assert_true (g_str_has_prefix (notes->pdata[2], "Line 6: “}}} oops” is not a statement"));
}

/* What Skele-Code's export writes, its import reads back as it was. */
static void
test_round_trip (void)
{
  static const char process[] =
    "{\n"
    "  \"process_name\": \"Flow \\\"quoted\\\" #1\",\n"
    "  \"process_description\": \"Two\\nlines\",\n"
    "  \"nodes\": {\n"
    "    \"1\": {\"name\": \"Load\", \"priors\": [], \"input\": {\"text\": \"load the data\", \"files\": [\"a.csv\"]}},\n"
    "    \"2\": {\"name\": \"Accept\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"output['score'] >= 80\"}}},\n"
    "    \"3\": {\"name\": \"Reject #2\", \"priors\": [\"1\"], \"skele\": {\"when\": {\"1\": \"default\"}}},\n"
    "    \"4\": {\"name\": \"Each \\\"file\\\"\", \"priors\": [\"1\"], \"skele\": {\"foreach\": {\"prior\": \"1\", \"path\": \"result.files\"}}},\n"
    "    \"5\": {\"name\": \"Gate\", \"priors\": [\"4\"], \"run\": false, \"extra\": {\"k\": 1},\n"
    "          \"skele\": {\"approval\": true, \"x\": 10, \"y\": 20, \"network\": true}},\n"
    "    \"6\": {\"name\": \"Inner\", \"priors\": [\"5\", \"2\"], \"skele\": {\"workflow\": \"sub/inner\"}},\n"
    "    \"7\": {\"name\": \"end\", \"priors\": [\"6\", \"3\"], \"description\": \"multi\\nline\"}\n"
    "  }\n"
    "}\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) original = sk_project_load_from_data (process, -1, NULL, &error);
  g_autoptr(SkProject) imported = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *mermaid = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_no_error (error);
  mermaid = sk_export_mermaid (original);
  imported = sk_import_mermaid (mermaid, -1, notes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);

  before = sk_project_to_data (original, NULL);
  after = sk_project_to_data (imported, NULL);
  g_assert_cmpstr (after, ==, before);
}

static void
test_unknown_statements (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *described = import_describe ("graph TD\n"
                                                "A-->B\n"
                                                "}}} nonsense\n"
                                                "B --> C junk here\n"
                                                "--> D\n"
                                                "C -->\n"
                                                "C --> E", notes);

  g_assert_cmpstr (described, ==, "A; B<A; C<B; E<C");
  assert_note (notes, "Line 3: “}}} nonsense” is not a statement that Skele-Code reads, so it was left out.");
  assert_note (notes, "Line 4: “junk here” could not be read");
  assert_note (notes, "Line 5: “--> D” is not a statement");
  assert_note (notes, "Line 6: “-->” could not be read");
  g_assert_cmpuint (notes->len, ==, 4);
}

static void
test_malformed (void)
{
  assert_parse_error ("sequenceDiagram\nA->>B: hi", -1, SK_EXPORT_ERROR_PARSE,
                      "Line 1 is not a Mermaid flowchart: it should start with “flowchart TD” or “graph TD”.");
  assert_parse_error ("%% a comment\n\npie title Pets\n", -1, SK_EXPORT_ERROR_PARSE, "Line 3 is not");
  assert_parse_error ("graphTD\nA-->B", -1, SK_EXPORT_ERROR_PARSE, "Line 1 is not");
  assert_parse_error ("", 0, SK_EXPORT_ERROR_EMPTY, NULL);
  assert_parse_error (NULL, 0, SK_EXPORT_ERROR_EMPTY, NULL);
  assert_parse_error ("  \n%% only a comment\n", -1, SK_EXPORT_ERROR_EMPTY, NULL);
  assert_parse_error ("graph TD", -1, SK_EXPORT_ERROR_EMPTY, NULL);
  assert_parse_error ("flowchart LR\n%% nothing\nsubgraph x\nend\n", -1, SK_EXPORT_ERROR_EMPTY, NULL);
  assert_parse_error ("graph TD\nA-->B\nB[abc --> C", -1, SK_EXPORT_ERROR_PARSE, "Line 3: the “[” that opens");
  assert_parse_error ("graph TD\nA((abc) --> C", -1, SK_EXPORT_ERROR_PARSE, "Line 2: the “((” that opens");
  assert_parse_error ("graph TD\n\nA[\"abc] --> C", -1, SK_EXPORT_ERROR_PARSE, "Line 3: a quoted label is never closed");
  assert_parse_error ("graph TD\nA@{ shape: rect", -1, SK_EXPORT_ERROR_PARSE, "Line 2: the “@{”");
  /* @length is honoured: the bracket's end lies beyond it. */
  assert_parse_error ("graph TD\nA[abc]", 14, SK_EXPORT_ERROR_PARSE, "Line 2");
}

static void
test_odd_bytes (void)
{
  static const char with_nul[] = "graph TD\nA\0\nB --> C";
  static const char invalid[] = "graph TD\nA[caf\xe9 \xff] --> B";
  g_autoptr(GError) error = NULL;
  g_autoptr(SkProject) project = NULL;
  g_autofree char *described = NULL;
  const char *name;

  project = sk_import_mermaid (with_nul, sizeof with_nul - 1, NULL, &error);
  g_assert_no_error (error);
  described = describe (project);
  g_assert_cmpstr (described, ==, "A; B; C<B");
  g_clear_object (&project);

  project = sk_import_mermaid (invalid, -1, NULL, &error);
  g_assert_no_error (error);
  name = sk_node_get_name (sk_project_get_node (project, "1"));
  g_assert_true (g_utf8_validate (name, -1, NULL));
  g_assert_true (g_str_has_prefix (name, "caf"));
  g_clear_object (&project);

  /* json-glib would make a lone UTF-16 surrogate bytes that are no UTF-8. */
  project = sk_import_mermaid ("graph TD\nA\n%% === WORKFLOW_CONFIG ===\n"
                               "%% @A: {\"prompt\": \"a \\ud800 b\"}\n%% === END_CONFIG ===\n",
                               -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sk_node_get_input_text (sk_project_get_node (project, "1")), ==, "a \xef\xbf\xbd b");
}

/* Random bytes, and random mixes of the syntax's own pieces, neither crash
 * nor hang the reader; each gives a workflow or an error. */
static void
test_garbage (void)
{
  static const char * const pieces[] = {
    "graph TD\n", "A", "B", "-->", "---", "-.", ".->", "==", "==>", "|", "\"", "`", "[", "]",
    "(", ")", "{", "}", "@{", "&", ";", "\n", " ", "%%", " @A: {", "%% === WORKFLOW_CONFIG ===\n",
    "subgraph ", "end", "~~~", "<", ">", "o", "x", "#quot;", "&#", ":::", "classDef ", "-- ",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260424);

  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr(GString) text = g_string_new (round % 2 == 0 ? "graph TD\n" : NULL);
      g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(SkProject) project = NULL;
      guint length = g_rand_int_range (rand, 0, 200);

      for (guint i = 0; i < length; i++)
        {
          if (round % 3 == 0)
            g_string_append_c (text, (char) g_rand_int_range (rand, 1, 256));
          else
            g_string_append (text, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
        }

      project = sk_import_mermaid (text->str, text->len, notes, &error);
      g_assert_true ((project == NULL) != (error == NULL));
      if (project != NULL)
        {
          g_autoptr(GPtrArray) problems = sk_project_validate (project);
          g_autoptr(GPtrArray) order = NULL;
          g_autoptr(GError) order_error = NULL;

          /* Whatever was read has steps with their own folders and no
           * cycle. */
          g_assert_cmpuint (sk_project_get_n_nodes (project), >, 0);
          order = sk_project_topological_order (project, &order_error);
          g_assert_no_error (order_error);
          for (guint i = 0; i < problems->len; i++)
            {
              SkProblem *problem = g_ptr_array_index (problems, i);

              g_assert_cmpint (problem->kind, !=, SK_PROBLEM_EMPTY_KEY);
              g_assert_cmpint (problem->kind, !=, SK_PROBLEM_DUPLICATE_KEY);
              g_assert_cmpint (problem->kind, !=, SK_PROBLEM_CYCLE);
              g_assert_cmpint (problem->kind, !=, SK_PROBLEM_DANGLING_PRIOR);
            }
        }
      for (guint i = 0; i < notes->len; i++)
        g_assert_true (g_utf8_validate (g_ptr_array_index (notes, i), -1, NULL));
    }
}

/* Big inputs are read in time proportional to their size. */
static void
test_big (void)
{
  g_autoptr(GString) chain = g_string_new ("graph TD\n");
  g_autoptr(GString) reversed = g_string_new ("graph TD\n");
  g_autoptr(GString) long_line = g_string_new ("graph TD\nA[");
  g_autoptr(GString) wide = g_string_new ("graph TD\n");
  g_autoptr(GString) deep = g_string_new ("graph TD\nA\n%% === WORKFLOW_CONFIG ===\n%% @A: ");
  g_autoptr(GString) many_notes = g_string_new ("graph TD\nA\n");
  g_autoptr(GTimer) timer = g_timer_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GPtrArray) order = NULL;
  SkNode *last;

  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (chain, "n%u --> n%u\n", i, i + 1);
  project = sk_import_mermaid (chain->str, chain->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 10001);
  last = sk_project_get_node (project, "10001");
  g_assert_cmpstr (sk_node_get_name (last), ==, "n10000");
  g_assert_cmpstr (sk_node_get_priors (last)[0], ==, "10000");
  order = sk_project_topological_order (project, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (order->len, ==, 10001);
  g_clear_object (&project);

  /* The same chain written from its end, which makes every cycle check
   * walk what was read before. */
  for (guint i = 2000; i > 0; i--)
    g_string_append_printf (reversed, "n%u --> n%u\n", i - 1, i);
  project = sk_import_mermaid (reversed->str, reversed->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2001);
  g_clear_object (&project);

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (long_line, "abc def "[i % 8]);
  g_string_append (long_line, "] --> B");
  project = sk_import_mermaid (long_line->str, long_line->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 2);
  g_clear_object (&project);

  /* 400 × 400 pairs is more than a statement may make. */
  for (guint i = 0; i < 400; i++)
    g_string_append_printf (wide, "%sl%u", i > 0 ? " & " : "", i);
  g_string_append (wide, " --> ");
  for (guint i = 0; i < 400; i++)
    g_string_append_printf (wide, "%sr%u", i > 0 ? " & " : "", i);
  project = sk_import_mermaid (wide->str, wide->len, notes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_project_get_n_nodes (project), ==, 800);
  assert_note (notes, "Line 2: the link makes more than 100000 connections");
  g_clear_object (&project);

  /* JSON nested too deep for the parser is a note, not a crash. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  g_string_append (deep, "\n%% === END_CONFIG ===\n");
  g_ptr_array_set_size (notes, 0);
  project = sk_import_mermaid (deep->str, deep->len, notes, &error);
  g_assert_no_error (error);
  assert_note (notes, "the configuration of “A” is not a valid JSON object");
  g_clear_object (&project);

  /* Notes are capped. */
  for (guint i = 0; i < 5000; i++)
    g_string_append (many_notes, "}}}\n");
  g_ptr_array_set_size (notes, 0);
  project = sk_import_mermaid (many_notes->str, many_notes->len, notes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 101);
  g_assert_cmpstr (g_ptr_array_index (notes, 100), ==, "4900 more notes were left out.");
  g_clear_object (&project);

  g_test_message ("big inputs took %.2f s", g_timer_elapsed (timer, NULL));
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 20);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mermaid-import/arrows", test_arrows);
  g_test_add_func ("/mermaid-import/comments", test_comments);
  g_test_add_func ("/mermaid-import/direction", test_direction);
  g_test_add_func ("/mermaid-import/edges", test_edges);
  g_test_add_func ("/mermaid-import/lines", test_lines);
  g_test_add_func ("/mermaid-import/md-string", test_md_string);
  g_test_add_func ("/mermaid-import/node-data", test_node_data);
  g_test_add_func ("/mermaid-import/singlenode", test_singlenode);
  g_test_add_func ("/mermaid-import/style", test_style);
  g_test_add_func ("/mermaid-import/text", test_text);
  g_test_add_func ("/mermaid-import/vertice-chaining", test_vertice_chaining);
  g_test_add_func ("/mermaid-import/subgraph", test_subgraph);
  g_test_add_func ("/mermaid-import/seed", test_seed);
  g_test_add_func ("/mermaid-import/conditions", test_conditions);
  g_test_add_func ("/mermaid-import/skele-entries", test_skele_entries);
  g_test_add_func ("/mermaid-import/names", test_names);
  g_test_add_func ("/mermaid-import/cycles", test_cycles);
  g_test_add_func ("/mermaid-import/note-order", test_note_order);
  g_test_add_func ("/mermaid-import/round-trip", test_round_trip);
  g_test_add_func ("/mermaid-import/unknown-statements", test_unknown_statements);
  g_test_add_func ("/mermaid-import/malformed", test_malformed);
  g_test_add_func ("/mermaid-import/odd-bytes", test_odd_bytes);
  g_test_add_func ("/mermaid-import/garbage", test_garbage);
  g_test_add_func ("/mermaid-import/big", test_big);

  return g_test_run ();
}
