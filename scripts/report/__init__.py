# SPDX-License-Identifier: BSL-1.0
"""The benchmark report's parts, in the order of the report: experiments (what each one is, its seed),
results (loading Google Benchmark's JSON), compare (the verdicts made by rule), tables, charts, summary
(the headline sections) and prose (the sentences generated from the data).
scripts/render_report.py puts them together."""
