/* test-export-html.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `skele export --format html`: the example workflow, run, makes one page
 * that loads nothing from elsewhere, escapes every text of the workflow,
 * carries its pictures as data: URIs and its tables and text files as
 * escaped previews, and says how each step ran. The page is rendered by
 * headless Chromium and its screenshot read: the canvas's green of the
 * steps that succeeded and the chart's blue bars must show, in light and in
 * dark colours. An empty workflow and one that never ran export too.
 *
 * Chromium comes from Debian's package `chromium`, which
 * build-aux/install-deps.sh installs. Without it the test fails and says
 * so; with SKELE_TESTS_ALLOW_MISSING_TOOLS=1 in the environment it skips
 * the rendering instead, for machines where the package cannot be had.
 */

#define G_LOG_DOMAIN "test-export-html"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gdk-pixbuf/gdk-pixbuf.h>

#include "skele.h"
#include "sk-test-util.h"

/* The canvas's colour of a step that succeeded, and the colour of the
 * example chart's bars (data/examples/sales-report/revenue_chart). */
#define SUCCEEDED_GREEN 0x2ec27e
#define BAR_BLUE 0x62a0ea

/* g_format_size() keeps a number and its unit together. */
#define NBSP "\u00a0"

#define EVIL_NAME "<script>alert(1)</script> & “x”"
#define EVIL_NAME_ESCAPED "&lt;script&gt;alert(1)&lt;/script&gt; &amp; “x”"

static const char *skele_bin;
static const char *examples_dir;

static void
assert_has (const char *html,
            const char *needle)
{
  if (strstr (html, needle) == NULL)
    g_error ("The page does not contain “%s”", needle);
}

static void
assert_lacks (const char *html,
              const char *needle)
{
  const char *found = strstr (html, needle);

  if (found != NULL)
    g_error ("The page contains “%s” at: %.200s", needle, found);
}

/* The part of the page about the step @key. */
static char *
step_section (const char *html,
              const char *key)
{
  g_autofree char *id = g_strdup_printf (" id=\"step-%s\">", key);
  const char *start = strstr (html, id);
  const char *end;

  if (start == NULL)
    g_error ("The page has no step %s", key);
  end = strstr (start, "</section>");
  g_assert_nonnull (end);

  return g_strndup (start, end - start);
}

static void
assert_before (const char *html,
               const char *first,
               const char *second)
{
  const char *a = strstr (html, first);
  const char *b = strstr (html, second);

  if (a == NULL || b == NULL || a > b)
    g_error ("The page does not have “%s” before “%s”", first, second);
}

/* Runs `skele ARGS…` and returns its standard output; the exit status
 * must be 0. */
static char *
run_skele (const char *first,
           ...)
{
  g_auto(SkTestResult) result = { 0 };
  va_list args;

  va_start (args, first);
  sk_test_run_valist (&result, SK_TEST_RUN_DEFAULT, NULL, SK_TEST_STRV (skele_bin, first), args);
  va_end (args);
  sk_test_assert_status (&result, 0);

  return g_steal_pointer (&result.out);
}

static SkProject *
load (const char *folder)
{
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load (file, &error);

  g_assert_no_error (error);
  return project;
}

static char *
export_with_skele (const char *folder,
                   const char *html_path)
{
  g_autofree char *html = NULL;
  g_autoptr(GError) error = NULL;

  g_free (run_skele ("export", folder, "--format", "html", "-o", html_path, NULL));
  g_file_get_contents (html_path, &html, NULL, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&html);
}

/* Nothing on the page comes from elsewhere: no reference to the web in an
 * attribute or style, and no script, frame, object or linked style sheet.
 * Addresses may stand in the text, escaped. */
static void
assert_self_contained (const char *html)
{
  g_autofree char *lower = g_ascii_strdown (html, -1);
  const char * const forbidden[] = {
    "src=\"http", "src='http", "src=http", "href=\"http", "href='http", "href=http",
    "src=\"//", "href=\"//", "url(", "@import", "<script", "<link", "<iframe", "<object",
    "<embed", "<base", "xlink:href", " on", "javascript:",
  };

  for (guint i = 0; i < G_N_ELEMENTS (forbidden); i++)
    {
      const char *found = strstr (lower, forbidden[i]);

      /* “ on” may begin a word of the text, as in “on 24 November”, but
       * never an event handler attribute in a tag. */
      while (found != NULL && g_str_equal (forbidden[i], " on"))
        {
          const char *open = g_strrstr_len (lower, found - lower, "<");
          const char *close = g_strrstr_len (lower, found - lower, ">");

          if (open == NULL || (close != NULL && close > open))
            found = strstr (found + 1, " on");
          else
            break;
        }
      if (found != NULL)
        g_error ("The page holds “%s” at: %.200s", forbidden[i], found);
    }
}

/* A 4 × 4 red PNG. */
static void
write_png (const char *path)
{
  g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, 4, 4);
  g_autoptr(GError) error = NULL;

  gdk_pixbuf_fill (pixbuf, 0xe01b24ff);
  gdk_pixbuf_save (pixbuf, path, "png", &error, NULL);
  g_assert_no_error (error);
}

/* Adds a step whose name, task, report, files and approval note try to
 * put markup on the page, after the run, with files in its folder. */
static void
add_evil_step (const char *folder)
{
  g_autoptr(SkProject) project = load (folder);
  g_autoptr(SkNode) node = sk_node_new ("10", EVIL_NAME);
  g_autoptr(GError) error = NULL;
  g_autofree char *step = NULL;
  g_autofree char *big_path = NULL;
  g_autofree char *png_path = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *big = g_malloc0 (6 * 1000 * 1000);
  const char * const files[] = {
    "evil.svg", "big.png", "pixel.png", "notes.txt", "data.bin", "../load_sales/sales.csv",
    "missing.csv", "outside/sales.csv", NULL,
  };
  const char * const priors[] = { "4", NULL };

  sk_node_set_priors (node, priors);
  sk_node_set_input_text (node, "Look at <img src=x onerror=alert(2)> and "
                                "https://example.com/page");
  sk_node_set_output_text (node, "<b>bold</b> & more\n"
                                 "see <a href=\"https://example.org/\">this</a>");
  sk_node_set_output_files (node, files);
  sk_node_set_approval (node, TRUE);
  sk_node_add_tokens (node, 1234, 567);
  sk_project_add_node (project, node, &error);
  g_assert_no_error (error);
  sk_project_save (project, &error);
  g_assert_no_error (error);

  step = g_build_filename (folder, sk_node_get_key (node), NULL);
  sk_test_write_text (step, "evil.svg",
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(3)\" width=\"10\" "
                      "height=\"10\"><script>alert(4)</script></svg>");
  sk_test_write_text (step, "notes.txt", "line one <i>\nline two & three\n");
  sk_test_write_text (step, "data.bin", "\x01\x02\x03");
  png_path = g_build_filename (step, "pixel.png", NULL);
  write_png (png_path);
  big_path = g_build_filename (step, "big.png", NULL);
  g_file_set_contents (big_path, big, 6 * 1000 * 1000, &error);
  g_assert_no_error (error);
  /* A link that leads out of the step's folder is not followed. */
  outside = g_build_filename (step, "outside", NULL);
  g_assert_cmpint (symlink ("../load_sales", outside), ==, 0);
  sk_approval_write (step, sk_node_get_key (node), TRUE, "fingerprint", "fine <u>by me</u>",
                     &error);
  g_assert_no_error (error);
}

static gboolean
near (const guchar *pixel,
      guint32       color)
{
  return ABS ((int) pixel[0] - (int) ((color >> 16) & 0xff)) +
         ABS ((int) pixel[1] - (int) ((color >> 8) & 0xff)) +
         ABS ((int) pixel[2] - (int) (color & 0xff)) <= 24;
}

typedef struct
{
  guint green;
  guint blue;
  guint dark;
  guint light;
  guint pixels;
} Colors;

static Colors
count_colors (const char *png)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new_from_file (png, &error);
  Colors colors = { 0, };
  const guchar *data;
  int rowstride;
  int channels;

  g_assert_no_error (error);
  data = gdk_pixbuf_read_pixels (pixbuf);
  rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  channels = gdk_pixbuf_get_n_channels (pixbuf);
  g_assert_cmpint (gdk_pixbuf_get_bits_per_sample (pixbuf), ==, 8);
  g_assert_cmpint (channels, >=, 3);

  for (int y = 0; y < gdk_pixbuf_get_height (pixbuf); y++)
    for (int x = 0; x < gdk_pixbuf_get_width (pixbuf); x++)
      {
        const guchar *pixel = data + y * rowstride + x * channels;
        int luminance = (pixel[0] * 299 + pixel[1] * 587 + pixel[2] * 114) / 1000;

        colors.pixels++;
        if (near (pixel, SUCCEEDED_GREEN))
          colors.green++;
        if (near (pixel, BAR_BLUE))
          colors.blue++;
        if (luminance < 90)
          colors.dark++;
        if (luminance > 200)
          colors.light++;
      }

  return colors;
}

static char *
find_chromium (void)
{
  char *path = g_find_program_in_path ("chromium");

  if (path == NULL)
    path = g_find_program_in_path ("chromium-browser");
  return path;
}

/* Renders @html_path with headless Chromium into a PNG in @dir, with the
 * light or the dark colour scheme, offline, and returns the PNG's path. */
static char *
render (const char *chromium,
        const char *dir,
        const char *html_path,
        const char *name,
        gboolean    dark)
{
  g_autofree char *home = g_build_filename (dir, "chromium-home", NULL);
  g_autofree char *profile = g_build_filename (home, "profile", NULL);
  g_autofree char *png = g_strdup_printf ("%s/%s.png", dir, name);
  g_autofree char *screenshot = g_strconcat ("--screenshot=", png, NULL);
  g_autofree char *user_data = g_strconcat ("--user-data-dir=", profile, NULL);
  g_autofree char *uri = g_filename_to_uri (html_path, NULL, NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  /* Debian 12's Chromium takes the new headless mode by name; --no-sandbox
   * because tests may run as root; the other switches keep it from
   * reaching the network or the desktop. The timeout stops a Chromium
   * that hangs. */
  const char * const options[] = {
    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-sync",
    "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
    "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--window-size=1200,4000",
  };
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) "timeout");
  g_ptr_array_add (argv, (char *) "120");
  g_ptr_array_add (argv, (char *) chromium);
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    g_ptr_array_add (argv, (char *) options[i]);
  if (dark)
    g_ptr_array_add (argv, (char *) "--force-dark-mode");
  g_ptr_array_add (argv, user_data);
  g_ptr_array_add (argv, screenshot);
  g_ptr_array_add (argv, uri);
  g_ptr_array_add (argv, NULL);

  g_assert_cmpint (g_mkdir_with_parents (home, 0700), ==, 0);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CACHE_HOME", home, TRUE);
  /* Chromium is no program of ours: the sanitizers' settings are not its. */
  g_subprocess_launcher_unsetenv (launcher, "LD_PRELOAD");
  g_subprocess_launcher_unsetenv (launcher, "DBUS_SESSION_BUS_ADDRESS");
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != 0 ||
      !g_file_test (png, G_FILE_TEST_IS_REGULAR))
    g_error ("Chromium did not render %s.\nstdout:\n%s\nstderr:\n%s", html_path, out, err);

  return g_steal_pointer (&png);
}

/* Chromium's path, or %NULL after failing or skipping the test. */
static char *
need_chromium (void)
{
  char *chromium = find_chromium ();

  if (chromium != NULL)
    return chromium;

  sk_test_missing_tool ("chromium");
  return NULL;
}

static void
test_sales_report (void)
{
  g_autofree char *example = g_build_filename (examples_dir, "sales-report", NULL);
  g_autofree char *dir = sk_test_make_tmp_dir ("export-html");
  g_autofree char *ran = g_build_filename (dir, "ran", NULL);
  g_autofree char *fresh = g_build_filename (dir, "fresh", NULL);
  g_autofree char *ran_html_path = g_build_filename (dir, "ran.html", NULL);
  g_autofree char *fresh_html_path = g_build_filename (dir, "fresh.html", NULL);
  g_autofree char *ran_html = NULL;
  g_autofree char *fresh_html = NULL;
  g_autofree char *out = NULL;
  g_autofree char *chromium = NULL;
  g_autofree char *ran_png = NULL;
  g_autofree char *fresh_png = NULL;
  g_autofree char *dark_png = NULL;
  Colors ran_colors;
  Colors fresh_colors;
  Colors dark_colors;

  sk_test_copy_folder (example, ran);
  sk_test_copy_folder (example, fresh);
  g_free (run_skele ("run", ran, NULL));
  add_evil_step (ran);

  ran_html = export_with_skele (ran, ran_html_path);
  g_assert_true (g_str_has_prefix (ran_html, "<!DOCTYPE html>\n"));
  assert_self_contained (ran_html);
  assert_has (ran_html, "<title>sales report</title>");
  assert_has (ran_html, "<meta http-equiv=\"Content-Security-Policy\" "
                        "content=\"default-src 'none'; img-src data:; "
                        "style-src 'unsafe-inline'\">");
  assert_has (ran_html, "A year of sales of a small stationery wholesaler");
  assert_has (ran_html, "prefers-color-scheme:dark");
  assert_has (ran_html, ".state-succeeded{--state:#2ec27e}");

  /* The workflow's picture is Graphviz's SVG, without its prolog. */
  assert_has (ran_html, "<figure class=\"graph\"");
  assert_has (ran_html, "<svg width=");
  assert_lacks (ran_html, "<?xml");
  assert_lacks (ran_html, "<!DOCTYPE svg");

  /* The steps in the runner's order, with their states. */
  assert_before (ran_html, "id=\"step-load_sales\"", "id=\"step-monthly_totals\"");
  assert_before (ran_html, "id=\"step-monthly_totals\"", "id=\"step-revenue_chart\"");
  assert_before (ran_html, "id=\"step-region_sheets\"", "id=\"step-region_review\"");
  assert_has (ran_html, "<section class=\"card step state-succeeded\" id=\"step-load_sales\">");
  assert_has (ran_html, "<section class=\"card step state-skipped\" id=\"step-confirm_balance\">");
  assert_has (ran_html, "10 steps · 1 Not run yet · 8 Succeeded · 1 Skipped · ");
  assert_has (ran_html, "Read 96 sales rows from sales.csv");
  assert_has (ran_html, "<dt>Why skipped</dt><dd>Condition not met: after “revenue by region”, "
                        "“flag weak region” was taken.</dd>");

  /* Timings from the records, tokens, and the control flow in words. */
  {
    g_autofree char *load_sales = step_section (ran_html, "load_sales");
    g_autofree char *evil = step_section (ran_html, "script_alert_1_script_x");

    assert_lacks (load_sales, "<dt>Timings</dt><dd>Not run yet</dd>");
    assert_has (load_sales, " s, on ");
    assert_has (evil, "<dt>Timings</dt><dd>Not run yet</dd>");
  }
  assert_has (ran_html, "<dt>Coding agent</dt><dd>No tokens used</dd>");
  assert_has (ran_html, "<dt>Coding agent</dt><dd>1234 tokens read, 567 tokens written</dd>");
  assert_has (ran_html, "Runs after “revenue by region” when this is true: "
                        "<code>output[&quot;region_totals&quot;][-1][&quot;share&quot;] "
                        "&lt; 20</code>");
  assert_has (ran_html, "Runs after “revenue by region” when no other condition on it is true.");
  assert_has (ran_html, "Runs once for each item of “region_totals” in the output of “revenue by "
                        "region”. Its last run had 4 items: 4 succeeded, 0 failed, 0 skipped.");
  assert_has (ran_html, "An approval gate: the run stops before it until someone approves or "
                        "denies it. Approved by ");
  assert_has (ran_html, "Note: fine &lt;u&gt;by me&lt;/u&gt;");

  /* Pictures inline; tables and text escaped. */
  assert_has (ran_html, "<img loading=\"lazy\" src=\"data:image/svg+xml;base64,");
  assert_has (ran_html, "alt=\"revenue_chart.svg\">");
  assert_has (ran_html, "<img loading=\"lazy\" src=\"data:image/png;base64,");
  assert_has (ran_html, "<th>month</th><th>month_name</th>");
  assert_has (ran_html, "<td>2024-09</td><td>September</td>");
  assert_has (ran_html, "<div class=\"file-name\">items/0/north_sales.csv</div>");
  assert_has (ran_html, "<pre># Sales report 2024");

  /* The step that tries to put markup on the page shows it as text. */
  assert_has (ran_html, "<span class=\"number\">10.</span> " EVIL_NAME_ESCAPED "</h2>");
  assert_lacks (ran_html, EVIL_NAME);
  assert_lacks (ran_html, "<script>");
  assert_has (ran_html, "Look at &lt;img src=x onerror=alert(2)&gt; and https://example.com/page");
  assert_has (ran_html, "&lt;b&gt;bold&lt;/b&gt; &amp; more\n"
                        "see &lt;a href=&quot;https://example.org/&quot;&gt;this&lt;/a&gt;");
  assert_lacks (ran_html, "onload");
  assert_has (ran_html, "<pre>line one &lt;i&gt;\nline two &amp; three\n</pre>");
  assert_has (ran_html, "This picture is too large to include (6.0" NBSP "MB, more than 5.0"
                        NBSP "MB)");
  assert_has (ran_html, "<div class=\"file-name\">data.bin</div>\n"
                        "<p class=\"dim\">A file of 3 bytes, not shown here.</p>");
  assert_has (ran_html, "<div class=\"file-name\">../load_sales/sales.csv</div>\n<p class=\"dim\">"
                        "Outside the step’s folder, so not included.</p>");
  assert_has (ran_html, "<div class=\"file-name\">outside/sales.csv</div>\n<p class=\"dim\">"
                        "Outside the step’s folder, so not included.</p>");
  assert_has (ran_html, "<div class=\"file-name\">missing.csv</div>\n<p class=\"dim\">Missing: "
                        "the step did not leave this file.</p>");
  assert_has (ran_html, "Made with Skele-Code on ");

  /* To the standard output, the same page. */
  out = run_skele ("export", ran, "--format", "html", NULL);
  g_assert_true (g_str_has_prefix (out, "<!DOCTYPE html>\n"));
  assert_has (out, EVIL_NAME_ESCAPED);

  /* A workflow that never ran says so, and has no files to show. */
  fresh_html = export_with_skele (fresh, fresh_html_path);
  assert_self_contained (fresh_html);
  assert_has (fresh_html, "<section class=\"card step state-idle\" id=\"step-load_sales\">");
  assert_has (fresh_html, "<dt>Timings</dt><dd>Not run yet</dd>");
  assert_has (fresh_html, "9 steps · 9 Not run yet");
  assert_lacks (fresh_html, "data:image");
  assert_lacks (fresh_html, "Succeeded");

  if ((chromium = need_chromium ()) == NULL)
    {
      sk_test_remove_tree (dir);
      return;
    }

  /* What a person sees: the green of the steps that succeeded, the blue
   * bars of the chart, and text. The page of the workflow that never ran
   * has the green only in the run marks of its picture, and no chart. */
  ran_png = render (chromium, dir, ran_html_path, "ran", FALSE);
  fresh_png = render (chromium, dir, fresh_html_path, "fresh", FALSE);
  ran_colors = count_colors (ran_png);
  fresh_colors = count_colors (fresh_png);
  g_test_message ("ran: %u green, %u blue, %u dark, %u light of %u; never ran: %u green, %u blue",
                  ran_colors.green, ran_colors.blue, ran_colors.dark, ran_colors.light,
                  ran_colors.pixels, fresh_colors.green, fresh_colors.blue);
  g_assert_cmpuint (ran_colors.blue, >, 5000);
  g_assert_cmpuint (fresh_colors.blue, <, 200);
  g_assert_cmpuint (ran_colors.green, >, fresh_colors.green + 5000);
  g_assert_cmpuint (ran_colors.dark, >, 5000);
  g_assert_cmpuint (ran_colors.light, >, ran_colors.pixels / 2);

  /* In dark colours the page is mostly dark, and the colours stay. */
  dark_png = render (chromium, dir, ran_html_path, "dark", TRUE);
  dark_colors = count_colors (dark_png);
  g_test_message ("dark: %u green, %u blue, %u dark, %u light of %u", dark_colors.green,
                  dark_colors.blue, dark_colors.dark, dark_colors.light, dark_colors.pixels);
  g_assert_cmpuint (dark_colors.dark, >, dark_colors.pixels / 2);
  g_assert_cmpuint (dark_colors.blue, >, 5000);
  g_assert_cmpuint (dark_colors.green, >, fresh_colors.green + 5000);

  sk_test_remove_tree (dir);
}

/* A workflow without steps is a page with its name and a word about it. */
static void
test_empty (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("export-html-empty");
  g_autofree char *html_path = g_build_filename (dir, "empty.html", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GFile) file = g_file_new_for_path (html_path);
  g_autoptr(SkProject) project = sk_project_new (folder);
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;

  sk_project_set_name (project, "nothing <yet>");
  g_assert_true (sk_export_html (project, file, &error));
  g_assert_no_error (error);
  g_file_get_contents (html_path, &html, NULL, &error);
  g_assert_no_error (error);

  assert_self_contained (html);
  assert_has (html, "<title>nothing &lt;yet&gt;</title>");
  assert_has (html, "<h1>nothing &lt;yet&gt;</h1>");
  assert_has (html, "0 steps");
  assert_has (html, "This workflow has no steps yet.");
  assert_lacks (html, "<section");
  assert_lacks (html, "<figure");
  g_assert_true (g_str_has_suffix (html, "</html>\n"));

  /* Nothing is written where the file cannot go. */
  {
    g_autofree char *bad_path = g_build_filename (dir, "no-such-folder", "x.html", NULL);
    g_autoptr(GFile) bad = g_file_new_for_path (bad_path);

    g_assert_false (sk_export_html (project, bad, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  }

  sk_test_remove_tree (dir);
}

/* A workflow in memory, without a folder, has no records or files to read;
 * the states, errors and control flow it holds are on the page. */
static void
test_no_folder (void)
{
  const char *json =
    "{\"process_name\": \"in memory\", \"nodes\": {"
    "  \"1\": {\"name\": \"alone\", \"priors\": [],"
    "        \"output\": {\"text\": \"\", \"files\": [\"out.png\"]}},"
    "  \"2\": {\"name\": \"nested\", \"priors\": [\"1\"],"
    "        \"skele\": {\"workflow\": \"sub <flow>\"}}}}";
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;
  g_autofree char *alone = NULL;
  g_autofree char *nested = NULL;

  project = sk_project_load_from_data (json, -1, NULL, &error);
  g_assert_no_error (error);
  sk_node_set_state (sk_project_get_node (project, "1"), SK_NODE_STATE_FAILED);
  sk_node_set_error (sk_project_get_node (project, "1"), "It broke <here>",
                     "Traceback: <module> & more");

  html = sk_export_html_text (project);
  assert_self_contained (html);
  assert_has (html, "<h1>in memory</h1>");
  assert_has (html, "<figure class=\"graph\"");
  alone = step_section (html, "alone");
  nested = step_section (html, "nested");
  assert_has (html, "<section class=\"card step state-failed\" id=\"step-alone\">");
  assert_has (alone, "<span class=\"state\">Failed</span>");
  assert_has (alone, "<dt>Problem</dt><dd>It broke &lt;here&gt;</dd>");
  assert_has (alone, "<pre>Traceback: &lt;module&gt; &amp; more</pre>");
  assert_has (alone, "<p class=\"dim\">No report.</p>");
  assert_has (alone, "<div class=\"file-name\">out.png</div>\n<p class=\"dim\">Not included: the "
                     "workflow has no folder.</p>");
  assert_has (html, "<section class=\"card step state-idle\" id=\"step-nested\">");
  assert_has (nested, "<dt>Control flow</dt><dd>Runs the workflow in the folder “sub &lt;flow&gt;” "
                      "as one step.</dd>");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  skele_bin = g_getenv ("SKELE_BIN");
  examples_dir = g_getenv ("SKELE_EXAMPLES_DIR");

  g_test_add_func ("/export-html/empty", test_empty);
  g_test_add_func ("/export-html/no-folder", test_no_folder);
  if (skele_bin != NULL && examples_dir != NULL)
    g_test_add_func ("/export-html/sales-report", test_sales_report);
  else
    g_test_message ("SKELE_BIN and SKELE_EXAMPLES_DIR are not set; run the tests with meson test");

  return g_test_run ();
}
