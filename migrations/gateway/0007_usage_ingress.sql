-- The API format each request arrived in: `anthropic` (Messages API), `openai-chat` (Chat Completions) or
-- `openai-responses` (Responses API). Rows written before the OpenAI-format endpoints existed were all
-- Messages API requests.
ALTER TABLE gateway_usage ADD COLUMN ingress TEXT NOT NULL DEFAULT 'anthropic';
