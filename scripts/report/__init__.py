"""The benchmark report's parts, in the order of the report: experiments (what each one is),
results (loading Google Benchmark's JSON), tables, charts, summary (the headline sections) and prose
(the sentences generated from the data). scripts/render_report.py puts them together."""
