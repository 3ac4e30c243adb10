//! The handoff linter (issue #3): prompt injection, hidden content, secrets, PII, `.aiignore`.
