//! `git aahp init`.
