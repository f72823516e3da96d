"""`report.html` is the report's markdown rendered: real tables, images in place, text escaped."""

from simdist.eval.html import markdown_to_html


def test_tables_lists_images_and_escaping():
    md = "\n".join(
        [
            "# Run: `peg`",
            "",
            "- success **0.25**",
            "- minutes 12.9",
            "",
            "A <note> & text",
            "on two lines.",
            "",
            "| round | video |",
            "|---|---|",
            "| 0 | ![clip](videos/a.gif) |",
            "| 1 | unavailable: no <EGL> |",
            "",
            "![curve](learning_curve.png)",
        ]
    )
    page = markdown_to_html(md, "t")
    assert "<h1>Run: <code>peg</code></h1>" in page
    assert "<ul><li>success <strong>0.25</strong></li><li>minutes 12.9</li></ul>" in page
    assert "<p>A &lt;note&gt; &amp; text on two lines.</p>" in page
    assert "<thead><tr><th>round</th><th>video</th></tr></thead>" in page and "|---|" not in page
    assert '<td><img src="videos/a.gif" alt="clip"></td>' in page and "no &lt;EGL&gt;" in page
    assert '<img src="learning_curve.png" alt="curve">' in page and page.count("<table>") == 1
