"""The pure rules of LLM judges: prompts, strict grade parsing, endpoint checks, backoff."""
