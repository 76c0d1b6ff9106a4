-- One row per BurstGPT request line of files 1-3 (the facts) that passed validation;
-- see macros/stg_burstgpt_requests.sql.
{{ stg_burstgpt_requests('burstgpt__requests') }}
