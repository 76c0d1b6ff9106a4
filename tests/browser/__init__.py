"""Browser tests: the real Dagster UI driven by Playwright on Debian's Chromium."""
