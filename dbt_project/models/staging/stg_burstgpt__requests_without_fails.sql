-- One row per request line of the without-fails twins (cross-file check only); see macros/stg_burstgpt_requests.sql.
{{ stg_burstgpt_requests('burstgpt__requests_without_fails') }}
