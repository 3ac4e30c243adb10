//! The agent instruction files: files coding agents read as instructions wherever they sit
//! in a repository (`AGENTS.md`, `CLAUDE.md`, `.cursor/rules/*`, …). One table, used by the
//! pre-commit gate (every staged one is linted) and by `lint --all`. Each entry carries its
//! own examples, and one test runs them all.

/// How an entry matches a repository-relative path.
#[derive(Debug, Clone, Copy)]
enum Pattern {
    /// The file name, in any directory.
    Name(&'static str),
    /// A file at this path below any directory (`.github/copilot-instructions.md`).
    Path(&'static str),
    /// Any file below a directory at this path below any directory (`.cursor/rules`).
    Under(&'static str),
    /// A file whose name starts with this and goes on (`.roorules-` for `.roorules-code`).
    NamePrefix(&'static str),
    /// Any file below a directory, below any directory, whose path is this followed by a
    /// name (`.roo/rules-` for a mode's `.roo/rules-code/`).
    UnderPrefix(&'static str),
}

/// One kind of agent instruction file.
#[derive(Debug)]
#[cfg_attr(
    not(test),
    allow(
        dead_code,
        reason = "who reads it and the examples are checked by the tests"
    )
)]
struct AgentFile {
    pattern: Pattern,
    /// Who reads it.
    tool: &'static str,
    /// Paths it matches.
    hits: &'static [&'static str],
    /// Near misses it must not match.
    misses: &'static [&'static str],
}

/// Every kind of agent instruction file the gate lints.
static AGENT_FILES: &[AgentFile] = &[
    AgentFile {
        pattern: Pattern::Name("AGENTS.md"),
        tool: "AGENTS.md convention (Codex, Jules, Amp, …)",
        hits: &[
            "AGENTS.md",
            "packages/api/AGENTS.md",
            "agents.md",
            "AGENTS.MD",
        ],
        misses: &["AGENTS.md.bak", "docs/MY_AGENTS.md"],
    },
    AgentFile {
        pattern: Pattern::Name("AGENT.md"),
        tool: "Amp and others",
        hits: &["AGENT.md", "svc/AGENT.md"],
        misses: &["AGENT.markdown"],
    },
    AgentFile {
        pattern: Pattern::Name("CLAUDE.md"),
        tool: "Claude Code",
        hits: &["CLAUDE.md", "a/b/c/CLAUDE.md", "claude.md", "Claude.md"],
        misses: &["CLAUDE.txt"],
    },
    AgentFile {
        pattern: Pattern::Name("CLAUDE.local.md"),
        tool: "Claude Code (personal)",
        hits: &["CLAUDE.local.md"],
        misses: &["CLAUDE.local.md.orig"],
    },
    AgentFile {
        pattern: Pattern::Name("GEMINI.md"),
        tool: "Gemini CLI",
        hits: &["GEMINI.md", "web/GEMINI.md"],
        misses: &["GEMINI.mdx"],
    },
    AgentFile {
        pattern: Pattern::Name("CONVENTIONS.md"),
        tool: "Aider",
        hits: &["CONVENTIONS.md", "pkg/CONVENTIONS.md"],
        misses: &["CODE_CONVENTIONS.md"],
    },
    AgentFile {
        pattern: Pattern::Name(".cursorrules"),
        tool: "Cursor (legacy)",
        hits: &[".cursorrules", "app/.cursorrules", ".CURSORRULES"],
        misses: &[".cursorrules.d/x"],
    },
    AgentFile {
        pattern: Pattern::Under(".cursor/rules"),
        tool: "Cursor",
        hits: &[
            ".cursor/rules/x.mdc",
            "pkg/.cursor/rules/deep/y.md",
            ".Cursor/rules/x.mdc",
        ],
        misses: &[
            ".cursor/settings.json",
            ".cursor/rules",
            ".cursor/mcp.json.bak",
        ],
    },
    AgentFile {
        pattern: Pattern::Path(".github/copilot-instructions.md"),
        tool: "GitHub Copilot",
        hits: &[
            ".github/copilot-instructions.md",
            ".github/Copilot-Instructions.md",
        ],
        misses: &["copilot-instructions.md", ".github/workflows/ci.yml"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/instructions"),
        tool: "GitHub Copilot (path-specific)",
        hits: &[".github/instructions/rust.instructions.md"],
        misses: &[".github/INSTRUCTIONS.md"],
    },
    AgentFile {
        pattern: Pattern::Name(".windsurfrules"),
        tool: "Windsurf (legacy)",
        hits: &[".windsurfrules"],
        misses: &["windsurfrules"],
    },
    AgentFile {
        pattern: Pattern::Under(".windsurf/rules"),
        tool: "Windsurf",
        hits: &[".windsurf/rules/style.md"],
        misses: &[".windsurf/config.json"],
    },
    AgentFile {
        pattern: Pattern::Name(".clinerules"),
        tool: "Cline (single file)",
        hits: &[".clinerules", "x/.clinerules"],
        misses: &[".clinerules.txt"],
    },
    AgentFile {
        pattern: Pattern::Under(".clinerules"),
        tool: "Cline (rules directory)",
        hits: &[".clinerules/01-style.md"],
        misses: &["clinerules/x.md"],
    },
    AgentFile {
        pattern: Pattern::Name(".roorules"),
        tool: "Roo Code (single file)",
        hits: &[".roorules"],
        misses: &[".roorules.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".roo/rules"),
        tool: "Roo Code",
        hits: &[".roo/rules/a.md"],
        misses: &[".roo/mcp.yaml"],
    },
    AgentFile {
        pattern: Pattern::NamePrefix(".roorules-"),
        tool: "Roo Code (one mode, single file)",
        hits: &[".roorules-code", "pkg/.roorules-architect"],
        misses: &["roorules-code", ".roorules.d/x"],
    },
    AgentFile {
        pattern: Pattern::UnderPrefix(".roo/rules-"),
        tool: "Roo Code (one mode's rules, any mode)",
        hits: &[
            ".roo/rules-code/01-style.md",
            ".roo/rules-docs-writer/a/b.md",
        ],
        misses: &[".roo/rules-code", ".roo/rulesets/x.md", ".roo/rules-/x.md"],
    },
    AgentFile {
        pattern: Pattern::Name(".rules"),
        tool: "Zed",
        hits: &[".rules", "app/.rules"],
        misses: &["x.rules", ".rules.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".kilocode/rules"),
        tool: "Kilo Code",
        hits: &[".kilocode/rules/formatting.md"],
        misses: &[".kilocode/config.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".kilo/rules"),
        tool: "Kilo Code (current layout)",
        hits: &[".kilo/rules/formatting.md"],
        misses: &[".kilo/package.json"],
    },
    AgentFile {
        pattern: Pattern::Name(".kilocoderules"),
        tool: "Kilo Code (legacy single file)",
        hits: &[".kilocoderules"],
        misses: &["kilocoderules"],
    },
    AgentFile {
        pattern: Pattern::Name("QWEN.md"),
        tool: "Qwen Code",
        hits: &["QWEN.md", "svc/QWEN.md"],
        misses: &["QWEN.md.bak"],
    },
    AgentFile {
        pattern: Pattern::Name("QWEN.local.md"),
        tool: "Qwen Code (personal)",
        hits: &[".qwen/QWEN.local.md"],
        misses: &[".qwen/settings.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Name("CRUSH.md"),
        tool: "Crush",
        hits: &["CRUSH.md", "crush.md"],
        misses: &["CRUSH.mdx"],
    },
    AgentFile {
        pattern: Pattern::Name("CRUSH.local.md"),
        tool: "Crush (personal)",
        hits: &["CRUSH.local.md"],
        misses: &["CRUSH.local.md.orig"],
    },
    AgentFile {
        pattern: Pattern::Name("WARP.md"),
        tool: "Warp",
        hits: &["WARP.md", "web/WARP.md"],
        misses: &["WARP.txt"],
    },
    AgentFile {
        pattern: Pattern::Under(".augment/rules"),
        tool: "Augment",
        hits: &[".augment/rules/style.md"],
        misses: &[".augment/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".augment/guidelines.md"),
        tool: "Augment (workspace guidelines)",
        hits: &[".augment/guidelines.md"],
        misses: &["augment/guidelines.md"],
    },
    AgentFile {
        pattern: Pattern::Name(".augment-guidelines"),
        tool: "Augment (legacy guidelines)",
        hits: &[".augment-guidelines"],
        misses: &["augment-guidelines"],
    },
    AgentFile {
        pattern: Pattern::Under(".trae/rules"),
        tool: "Trae",
        hits: &[".trae/rules/project_rules.md"],
        misses: &[".trae/mcp.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".openhands/microagents"),
        tool: "OpenHands (microagents)",
        hits: &[".openhands/microagents/repo.md"],
        misses: &[".openhands/setup.sh.bak"],
    },
    AgentFile {
        pattern: Pattern::Name(".goosehints"),
        tool: "Goose",
        hits: &[".goosehints"],
        misses: &["goosehints.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".kiro/steering"),
        tool: "Kiro",
        hits: &[".kiro/steering/product.md"],
        misses: &[".kiro/settings/mcp.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".kiro/specs"),
        tool: "Kiro (specs: requirements, design and the tasks it carries out)",
        hits: &[
            ".kiro/specs/login/tasks.md",
            ".kiro/specs/login/requirements.md",
            "app/.kiro/specs/fix/bugfix.md",
        ],
        misses: &[".kiro/specs.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".qoder/rules"),
        tool: "Qoder",
        hits: &[".qoder/rules/main.md"],
        misses: &[".qoder/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".lingma/rules"),
        tool: "Qoder CN (Lingma)",
        hits: &[".lingma/rules/style.md"],
        misses: &[".lingma/rules.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".continue/rules"),
        tool: "Continue",
        hits: &[".continue/rules/a.md"],
        misses: &[".continue/config.yaml.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".amazonq/rules"),
        tool: "Amazon Q Developer",
        hits: &[".amazonq/rules/a.md"],
        misses: &[".amazonq/x.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".claude/commands"),
        tool: "Claude Code (commands)",
        hits: &[".claude/commands/review.md"],
        misses: &[".claude/settings.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".claude/agents"),
        tool: "Claude Code (subagents)",
        hits: &[".claude/agents/tester.md"],
        misses: &[".claude/agents.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".claude/skills"),
        tool: "Claude Code (skills, with the files they bundle)",
        hits: &[
            ".claude/skills/release/SKILL.md",
            ".claude/skills/release/notes.md",
        ],
        misses: &[".claude/skill.md"],
    },
    AgentFile {
        pattern: Pattern::Name("AGENTS.override.md"),
        tool: "Codex (overrides AGENTS.md)",
        hits: &["AGENTS.override.md", "svc/AGENTS.override.md"],
        misses: &["AGENTS.override.md.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/prompts"),
        tool: "GitHub Copilot (prompt files)",
        hits: &[".github/prompts/review.prompt.md"],
        misses: &[".github/PROMPTS.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/agents"),
        tool: "GitHub Copilot (custom agents)",
        hits: &[".github/agents/planner.agent.md"],
        misses: &[".github/agent.yml"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/chatmodes"),
        tool: "GitHub Copilot (chat modes)",
        hits: &[".github/chatmodes/plan.chatmode.md"],
        misses: &[".github/chatmode.md"],
    },
    AgentFile {
        pattern: Pattern::Path(".junie/guidelines.md"),
        tool: "JetBrains Junie",
        hits: &[".junie/guidelines.md"],
        misses: &["junie/guidelines.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".cursor/commands"),
        tool: "Cursor (commands)",
        hits: &[".cursor/commands/ship.md"],
        misses: &[".cursor/environment.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".gemini/commands"),
        tool: "Gemini CLI (commands)",
        hits: &[".gemini/commands/test.toml"],
        misses: &[".gemini/settings.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".windsurf/workflows"),
        tool: "Windsurf (workflows)",
        hits: &[".windsurf/workflows/deploy.md"],
        misses: &[".windsurf/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".claude/output-styles"),
        tool: "Claude Code (output styles: the system prompt)",
        hits: &[".claude/output-styles/terse.md"],
        misses: &[".claude/output-style.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/agents"),
        tool: "opencode (agents)",
        hits: &[
            ".opencode/agents/review.md",
            ".opencode/agents/team/review.md",
        ],
        misses: &[".opencode/package.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/agent"),
        tool: "opencode (agents, earlier layout)",
        hits: &[".opencode/agent/review.md"],
        misses: &[".opencode/agent.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/commands"),
        tool: "opencode (commands)",
        hits: &[".opencode/commands/test.md"],
        misses: &[".opencode/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/command"),
        tool: "opencode (commands, earlier layout)",
        hits: &[".opencode/command/test.md"],
        misses: &[".opencode/command.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/tools"),
        tool: "opencode (custom tools: each one's description and arguments go to the model, its code runs)",
        hits: &[".opencode/tools/database.ts", ".opencode/tools/lib/math.js"],
        misses: &[".opencode/tools.ts"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/tool"),
        tool: "opencode (custom tools, earlier layout)",
        hits: &[".opencode/tool/search.ts"],
        misses: &[".opencode/tool.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".factory/commands"),
        tool: "Factory (custom slash commands: Markdown prompts and executable scripts)",
        hits: &[
            ".factory/commands/ship.md",
            ".factory/commands/team/review.md",
        ],
        misses: &[".factory/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".factory/droids"),
        tool: "Factory (custom droids: subagents, each a system prompt in Markdown)",
        hits: &[".factory/droids/reviewer.md", "pkg/.factory/droids/a.md"],
        misses: &[".factory/droids.md", ".factory/droids"],
    },
    AgentFile {
        pattern: Pattern::Under(".aiassistant/rules"),
        tool: "JetBrains AI Assistant (project rules)",
        hits: &[".aiassistant/rules/style.md"],
        misses: &[".aiassistant/rules.md", ".aiassistant/settings.xml"],
    },
    AgentFile {
        pattern: Pattern::Under(".qoder/commands"),
        tool: "Qoder (custom commands: prompts submitted as they are)",
        hits: &[".qoder/commands/review.md", ".qoder/commands/team/ship.md"],
        misses: &[".qoder/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".lingma/commands"),
        tool: "Qoder CN (Lingma) (project custom commands)",
        hits: &[".lingma/commands/review.md"],
        misses: &[".lingma/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".roo/commands"),
        tool: "Roo Code (project slash commands)",
        hits: &[".roo/commands/review.md"],
        misses: &[".roo/commands.md", ".roo/commands"],
    },
    AgentFile {
        pattern: Pattern::Under(".kilocode/workflows"),
        tool: "Kilo Code (workflows: slash commands the agent may run itself)",
        hits: &[".kilocode/workflows/release.md"],
        misses: &[".kilocode/workflows.md", ".kilocode/workflows"],
    },
    AgentFile {
        pattern: Pattern::Path(".idx/airules.md"),
        tool: "Firebase Studio (Gemini's AI rules file)",
        hits: &[".idx/airules.md", ".IDX/AIRules.md"],
        misses: &[".idx/dev.nix", "airules.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".qoder/agents"),
        tool: "Qoder (custom agents: subagents, each a system prompt in Markdown)",
        hits: &[".qoder/agents/code-review.md"],
        misses: &[".qoder/agents.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".qoder/skills"),
        tool: "Qoder (skills, with the files they bundle)",
        hits: &[".qoder/skills/log-analyzer/SKILL.md"],
        misses: &[".qoder/skills.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".factory/skills"),
        tool: "Factory (skills, with the files they bundle: slash commands too)",
        hits: &[
            ".factory/skills/review/SKILL.md",
            ".factory/skills/review/notes.md",
        ],
        misses: &[".factory/skills.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".augment/commands"),
        tool: "Augment (workspace custom slash commands)",
        hits: &[".augment/commands/security-review.md"],
        misses: &[".augment/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".agents/commands"),
        tool: "Amp and Augment (workspace slash commands: Markdown prompts and scripts)",
        hits: &[".agents/commands/review.md", ".agents/commands/ship"],
        misses: &[".agents/commands.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".gemini/agents"),
        tool: "Gemini CLI (subagents: each a system prompt in Markdown)",
        hits: &[".gemini/agents/investigator.md"],
        misses: &[".gemini/agents.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".cursor/agents"),
        tool: "Cursor (subagents)",
        hits: &[".cursor/agents/verifier.md"],
        misses: &[".cursor/agents.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".tabnine/guidelines"),
        tool: "Tabnine Agent (guidelines: custom system prompts and workflow rules)",
        hits: &[".tabnine/guidelines/app.md"],
        misses: &[".tabnine/guidelines.md"],
    },
    AgentFile {
        pattern: Pattern::Path(".tabnine/agent/system.md"),
        tool: "Tabnine CLI (replaces the built-in system prompt)",
        hits: &[".tabnine/agent/system.md"],
        misses: &[".tabnine/agent/settings.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Name("TABNINE.md"),
        tool: "Tabnine CLI (context files)",
        hits: &["TABNINE.md", "svc/TABNINE.md"],
        misses: &["TABNINE.md.bak"],
    },
    AgentFile {
        pattern: Pattern::Under(".firebender/rules"),
        tool: "Firebender (project rules)",
        hits: &[".firebender/rules/kotlin-style.mdc"],
        misses: &[".firebender/rules.mdc"],
    },
    AgentFile {
        pattern: Pattern::Under(".firebender/commands"),
        tool: "Firebender (custom slash commands)",
        hits: &[".firebender/commands/create-pr.mdc"],
        misses: &[".firebender/commands.mdc"],
    },
    AgentFile {
        pattern: Pattern::Under(".firebender/agents"),
        tool: "Firebender (custom agents: a system prompt in Markdown each)",
        hits: &[".firebender/agents/code-reviewer.md"],
        misses: &[".firebender/agents.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/skills"),
        tool: "opencode (skills, with the files they bundle)",
        hits: &[".opencode/skills/deploy/SKILL.md"],
        misses: &[".opencode/skill.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/mode"),
        tool: "opencode (modes, the earlier layout of agents)",
        hits: &[".opencode/mode/review.md"],
        misses: &[".opencode/mode.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/plugin"),
        tool: "opencode (plugins: code loaded at start)",
        hits: &[".opencode/plugin/audit.ts"],
        misses: &[".opencode/plugin.ts"],
    },
    AgentFile {
        pattern: Pattern::Under(".opencode/plugins"),
        tool: "opencode (plugins, current layout)",
        hits: &[".opencode/plugins/audit.ts"],
        misses: &[".opencode/plugins.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".claude/rules"),
        tool: "Claude Code (modular memory rules)",
        hits: &[".claude/rules/testing.md", "web/.claude/rules/api/style.md"],
        misses: &[".claude/rules.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".codex/skills"),
        tool: "Codex (skills, with the files they bundle)",
        hits: &[".codex/skills/deploy/SKILL.md"],
        misses: &[".codex/skills.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/skills"),
        tool: "GitHub Copilot (skills)",
        hits: &[".github/skills/deploy/SKILL.md"],
        misses: &[".github/SKILLS.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".agents/skills"),
        tool: "Agent skills (shared location)",
        hits: &[".agents/skills/deploy/SKILL.md"],
        misses: &[".agents/notes.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".cursor/skills"),
        tool: "Cursor (skills)",
        hits: &[".cursor/skills/deploy/SKILL.md"],
        misses: &[".cursor/skills.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".windsurf/skills"),
        tool: "Windsurf (skills)",
        hits: &[".windsurf/skills/deploy/SKILL.md"],
        misses: &[".windsurf/skills.md"],
    },
    AgentFile {
        pattern: Pattern::Path(".cursor/BUGBOT.md"),
        tool: "Cursor Bugbot (review rules, in any directory)",
        hits: &[".cursor/BUGBOT.md", "api/.cursor/BUGBOT.md"],
        misses: &["BUGBOT.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".agent/rules"),
        tool: "Antigravity (rules)",
        hits: &[".agent/rules/style.md"],
        misses: &[".agent/notes.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".agent/workflows"),
        tool: "Antigravity (workflows)",
        hits: &[".agent/workflows/release.md"],
        misses: &[".agent/workflow.md"],
    },
    AgentFile {
        pattern: Pattern::Under(".continue/prompts"),
        tool: "Continue (prompt files)",
        hits: &[".continue/prompts/review.md"],
        misses: &[".continue/prompt.md"],
    },
    AgentFile {
        pattern: Pattern::Path(".gemini/system.md"),
        tool: "Gemini CLI (the system prompt, with GEMINI_SYSTEM_MD)",
        hits: &[".gemini/system.md"],
        misses: &["gemini/system.md"],
    },
    AgentFile {
        pattern: Pattern::Path(".gemini/styleguide.md"),
        tool: "Gemini Code Assist on GitHub (extends the reviewer's prompt)",
        hits: &[".gemini/styleguide.md"],
        misses: &["styleguide.md", ".gemini/styleguide.md.bak"],
    },
];

/// The agent configuration files (review s26 #4): they decide what the agent runs (a
/// session hook's command, whose output the agent reads; an MCP server) and whether it asks
/// first, and some name other files as its instructions ([`super::agent_config`]). Their
/// text is judged as an instruction file's is, secrets and injection alike.
static AGENT_CONFIGS: &[AgentFile] = &[
    AgentFile {
        pattern: Pattern::Path(".claude/settings.json"),
        tool: "Claude Code (project settings: hooks, permissions)",
        hits: &[".claude/settings.json", "pkg/.claude/settings.json"],
        misses: &["settings.json", ".claude/settings.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Path(".claude/settings.local.json"),
        tool: "Claude Code (personal settings)",
        hits: &[".claude/settings.local.json"],
        misses: &["settings.local.json"],
    },
    AgentFile {
        pattern: Pattern::Name(".mcp.json"),
        tool: "Claude Code (project MCP servers)",
        hits: &[".mcp.json", "svc/.mcp.json"],
        misses: &["mcp.json", ".mcp.json.example"],
    },
    AgentFile {
        pattern: Pattern::Path(".cursor/mcp.json"),
        tool: "Cursor (MCP servers)",
        hits: &[".cursor/mcp.json"],
        misses: &["cursor/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".vscode/mcp.json"),
        tool: "VS Code, GitHub Copilot (MCP servers)",
        hits: &[".vscode/mcp.json"],
        misses: &[".vscode/tasks.json", ".vscode/launch.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".gemini/settings.json"),
        tool: "Gemini CLI (settings: MCP servers, context file names)",
        hits: &[".gemini/settings.json"],
        misses: &["gemini/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".qwen/settings.json"),
        tool: "Qwen Code (settings, as Gemini CLI's)",
        hits: &[".qwen/settings.json"],
        misses: &["qwen/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Name("opencode.json"),
        tool: "opencode (configuration: instructions, MCP servers)",
        hits: &[
            "opencode.json",
            ".opencode/opencode.json",
            "web/opencode.json",
        ],
        misses: &["opencode.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Name("opencode.jsonc"),
        tool: "opencode (configuration with comments)",
        hits: &["opencode.jsonc"],
        misses: &["opencode.jsonc.orig"],
    },
    AgentFile {
        pattern: Pattern::Name(".aider.conf.yml"),
        tool: "Aider (configuration: files read as conventions)",
        hits: &[".aider.conf.yml"],
        misses: &["aider.conf.yml"],
    },
    AgentFile {
        pattern: Pattern::Name(".aider.model.settings.yml"),
        tool: "Aider (model settings: a system prompt prefix and request parameters)",
        hits: &[".aider.model.settings.yml", "svc/.aider.model.settings.yml"],
        misses: &["aider.model.settings.yml", ".aider.model.settings.yml.bak"],
    },
    AgentFile {
        pattern: Pattern::Name(".env"),
        tool: "Aider (the environment file it loads: its AIDER_* options, model endpoints)",
        hits: &[".env", "svc/.env"],
        misses: &[".env.example", ".envrc", "x.env"],
    },
    AgentFile {
        pattern: Pattern::Path(".openhands/setup.sh"),
        tool: "OpenHands (the setup script it runs at the start of every session)",
        hits: &[".openhands/setup.sh"],
        misses: &[".openhands/setup.sh.orig", "openhands/setup.sh"],
    },
    AgentFile {
        pattern: Pattern::Path(".openhands/pre-commit.sh"),
        tool: "OpenHands (the git pre-commit hook of the agent's commits; its output goes to \
               the agent)",
        hits: &[".openhands/pre-commit.sh", "svc/.openhands/pre-commit.sh"],
        misses: &[".openhands/pre-commit.sh.orig", "openhands/pre-commit.sh"],
    },
    AgentFile {
        pattern: Pattern::Path(".openhands/hooks.json"),
        tool: "OpenHands (hooks in Claude Code's shape: SessionStart, UserPromptSubmit, … \
               commands)",
        hits: &[".openhands/hooks.json"],
        misses: &[".openhands/hooks.json.bak", "openhands/hooks.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".github/hooks"),
        tool: "GitHub Copilot cloud agent and CLI (hook files: `bash`/`powershell` commands \
               at sessionStart, userPromptSubmitted, …)",
        hits: &[".github/hooks/hooks.json", ".github/hooks/start.json"],
        misses: &[".github/hook.json", ".githooks/pre-commit"],
    },
    AgentFile {
        pattern: Pattern::Path(".codex/hooks.json"),
        tool: "Codex (project hooks in Claude Code's shape: SessionStart, UserPromptSubmit, … \
               commands)",
        hits: &[".codex/hooks.json", "svc/.codex/hooks.json"],
        misses: &[".codex/hooks.json.bak", "codex/hooks.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".factory/hooks.json"),
        tool: "Factory Droid (project hooks in Claude Code's shape: SessionStart, … commands)",
        hits: &[".factory/hooks.json"],
        misses: &[".factory/hooks.json.bak", "factory/hooks.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".factory/hooks/hooks.json"),
        tool: "Factory Droid (project hooks, the earlier place: read while `.factory/hooks.json` \
               is absent)",
        hits: &[".factory/hooks/hooks.json"],
        misses: &[".factory/hooks/hooks.migrated.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".factory/settings.json"),
        tool: "Factory Droid (project settings: hooks under `hooks` where no hooks file is, \
               permissions)",
        hits: &[".factory/settings.json"],
        misses: &[".factory/settings.local.json.bak", "factory/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".windsurf/hooks.json"),
        tool: "Windsurf Cascade (workspace hooks: commands at pre_user_prompt, …)",
        hits: &[".windsurf/hooks.json"],
        misses: &[".windsurf/hooks.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Path(".github/workflows/copilot-setup-steps.yml"),
        tool: "GitHub Copilot coding agent (setup steps run before it starts)",
        hits: &[".github/workflows/copilot-setup-steps.yml"],
        misses: &[".github/workflows/ci.yml", "copilot-setup-steps.yml"],
    },
    AgentFile {
        pattern: Pattern::Path(".github/workflows/copilot-setup-steps.yaml"),
        tool: "GitHub Copilot coding agent (setup steps, the .yaml spelling)",
        hits: &[".github/workflows/copilot-setup-steps.yaml"],
        misses: &[".github/workflows/copilot-setup-steps.yaml.orig"],
    },
    AgentFile {
        pattern: Pattern::Path(".roo/mcp.json"),
        tool: "Roo Code (project MCP servers)",
        hits: &[".roo/mcp.json"],
        misses: &["roo/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".kilocode/mcp.json"),
        tool: "Kilo Code (project MCP servers)",
        hits: &[".kilocode/mcp.json"],
        misses: &["kilocode/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".cursor/hooks.json"),
        tool: "Cursor (hooks: commands around agent actions)",
        hits: &[".cursor/hooks.json"],
        misses: &["cursor/hooks.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".cursor/environment.json"),
        tool: "Cursor (cloud agents: install and start commands)",
        hits: &[".cursor/environment.json"],
        misses: &["environment.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".codex/config.toml"),
        tool: "Codex (project configuration: MCP servers, instructions, approvals)",
        hits: &[".codex/config.toml"],
        misses: &["config.toml", "codex/config.toml"],
    },
    AgentFile {
        pattern: Pattern::Path(".vscode/settings.json"),
        tool: "VS Code, GitHub Copilot (inline instructions, tool approval)",
        hits: &[".vscode/settings.json"],
        misses: &["settings.json", ".vscode/launch.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".zed/settings.json"),
        tool: "Zed (context servers, agent settings)",
        hits: &[".zed/settings.json"],
        misses: &["zed/settings.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".continue/config.yaml"),
        tool: "Continue (workspace configuration: rules, prompts, MCP servers)",
        hits: &[".continue/config.yaml"],
        misses: &["continue/config.yaml"],
    },
    AgentFile {
        pattern: Pattern::Path(".continue/config.json"),
        tool: "Continue (configuration, earlier format)",
        hits: &[".continue/config.json"],
        misses: &["continue/config.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".continue/mcpServers"),
        tool: "Continue (MCP server blocks)",
        hits: &[
            ".continue/mcpServers/db.yaml",
            ".continue/mcpServers/db.json",
        ],
        misses: &[".continue/mcp.yaml"],
    },
    AgentFile {
        pattern: Pattern::Under(".continue/agents"),
        tool: "Continue (agents)",
        hits: &[".continue/agents/helper.yaml"],
        misses: &[".continue/agent.yaml"],
    },
    AgentFile {
        pattern: Pattern::Path(".gemini/.env"),
        tool: "Gemini CLI (project environment: GEMINI_SYSTEM_MD, endpoints)",
        hits: &[".gemini/.env"],
        misses: &[".gemini/.env.bak", ".gemini/env"],
    },
    AgentFile {
        pattern: Pattern::Name("gemini-extension.json"),
        tool: "Gemini CLI (extensions: MCP servers, context files)",
        hits: &[".gemini/extensions/team/gemini-extension.json"],
        misses: &["gemini-extension.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Path(".amazonq/mcp.json"),
        tool: "Amazon Q Developer (workspace MCP servers)",
        hits: &[".amazonq/mcp.json"],
        misses: &["amazonq/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".amazonq/cli-agents"),
        tool: "Amazon Q Developer CLI (agents: prompt, hooks, MCP servers)",
        hits: &[".amazonq/cli-agents/dev.json"],
        misses: &[".amazonq/agent.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".kiro/settings/mcp.json"),
        tool: "Kiro (workspace MCP servers)",
        hits: &[".kiro/settings/mcp.json"],
        misses: &[".kiro/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Under(".kiro/hooks"),
        tool: "Kiro (agent hooks: prompts and commands)",
        hits: &[".kiro/hooks/lint.kiro.hook", ".kiro/hooks/all.json"],
        misses: &[".kiro/hook.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".junie/mcp/mcp.json"),
        tool: "JetBrains Junie (project MCP servers)",
        hits: &[".junie/mcp/mcp.json"],
        misses: &[".junie/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".trae/mcp.json"),
        tool: "Trae (project MCP servers)",
        hits: &[".trae/mcp.json"],
        misses: &["trae/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Path(".factory/mcp.json"),
        tool: "Factory Droid (project MCP servers)",
        hits: &[".factory/mcp.json"],
        misses: &["factory/mcp.json"],
    },
    AgentFile {
        pattern: Pattern::Name("crush.json"),
        tool: "Crush (configuration: MCP and language servers, context paths)",
        hits: &["crush.json", "web/crush.json"],
        misses: &["crush.json.bak"],
    },
    AgentFile {
        pattern: Pattern::Name(".crush.json"),
        tool: "Crush (hidden configuration)",
        hits: &[".crush.json"],
        misses: &["crush.jsonc"],
    },
    AgentFile {
        pattern: Pattern::Path(".kilo/kilo.jsonc"),
        tool: "Kilo CLI (opencode's configuration: instructions, MCP servers)",
        hits: &[".kilo/kilo.jsonc"],
        misses: &["kilo.jsonc"],
    },
    AgentFile {
        pattern: Pattern::Path(".kilo/kilo.json"),
        tool: "Kilo CLI (configuration without comments)",
        hits: &[".kilo/kilo.json"],
        misses: &["kilo.json"],
    },
    AgentFile {
        pattern: Pattern::Name(".roomodes"),
        tool: "Roo Code (custom modes: role definitions, instructions)",
        hits: &[".roomodes", "web/.roomodes"],
        misses: &["roomodes"],
    },
    AgentFile {
        pattern: Pattern::Name(".kilocodemodes"),
        tool: "Kilo Code (custom modes)",
        hits: &[".kilocodemodes"],
        misses: &["kilocodemodes"],
    },
];

/// The names of the instruction files whose `@path` lines the agent loads as part of them
/// (the memory imports of Claude Code, Gemini CLI and Qwen Code).
pub const IMPORTING_NAMES: [&str; 4] = ["CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "QWEN.md"];

/// True for an instruction file whose `@path` lines the agent loads ([`IMPORTING_NAMES`]),
/// or one whose harness inlines the files it references ([`Referencing`]).
pub fn imports_files(path: &str) -> bool {
    let name = fold_case(path.rsplit('/').next().unwrap_or(path));
    IMPORTING_NAMES.iter().any(|n| name.eq_ignore_ascii_case(n)) || referencing(path).is_some()
}

/// How an instruction file of a harness that inlines the files it references names them
/// (review atk35 #7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Referencing {
    /// Kiro's steering and spec files: `#[[file:path]]`, from the workspace's top (the
    /// directory holding `.kiro`).
    Kiro,
    /// Cursor's project rules (`.cursor/rules/*.mdc`): `@path`, from the workspace's top.
    Cursor,
    /// VS Code's Copilot prompt, instruction, chat mode and agent files under `.github/`:
    /// `#file:path` and Markdown links `[text](path)`, from the file's directory.
    Copilot,
}

/// The way the instruction file at `path` references files its harness inlines, if any.
fn referencing(path: &str) -> Option<(Referencing, &str)> {
    let folded = fold_case(path);
    let top = |dir: &str| {
        let at = if folded.starts_with(dir) {
            0
        } else {
            folded.find(&format!("/{dir}"))? + 1
        };
        // The folded name keeps the byte offsets of an ASCII path; another's top is looked
        // up where it lies in the path itself.
        let top = if path.is_ascii() {
            path.get(..at)?
        } else {
            let lower = path.to_lowercase();
            let at = if lower.starts_with(dir) {
                0
            } else {
                lower.find(&format!("/{dir}"))? + 1
            };
            path.get(..at)?
        };
        Some(top.trim_end_matches('/'))
    };
    // `folded` is in lower case already.
    let ext = folded.rsplit_once('.').map(|(_, e)| e);
    if ext == Some("md") && (top(".kiro/steering/").is_some() || top(".kiro/specs/").is_some()) {
        let root = top(".kiro/steering/").or_else(|| top(".kiro/specs/"))?;
        return Some((Referencing::Kiro, root));
    }
    if ext == Some("mdc") {
        return top(".cursor/rules/").map(|root| (Referencing::Cursor, root));
    }
    let copilot = [
        ".github/prompts/",
        ".github/instructions/",
        ".github/chatmodes/",
        ".github/agents/",
    ];
    if ext == Some("md") && copilot.iter().any(|d| top(d).is_some()) {
        return Some((
            Referencing::Copilot,
            path.rsplit_once('/').map_or("", |(p, _)| p),
        ));
    }
    None
}

/// True for a file that makes the agent read other files as instructions: an importing
/// instruction file ([`imports_files`]), a configuration naming instruction files
/// ([`super::agent_config::names_files`]), or any agent configuration, whose hooks and
/// servers may run scripts of the repository ([`super::agent_runs::runs`]).
pub fn pulls_in_files(path: &str) -> bool {
    imports_files(path) || super::agent_config::names_files(path) || is_agent_config(path)
}

/// The files an instruction file imports: each `@path` that starts a word outside code
/// (fenced blocks, code spans of matched backtick runs), resolved against the directory of
/// `path` (repository-relative); `\ ` in a path is a space. Erring on the side of
/// following (review 21): an indented line counts, since it may continue a paragraph, and
/// a backtick without its match is text. Paths out of the repository (`/…`, `~/…`, too
/// many `..`) are not the repository's to judge and are left out, as are words that are
/// not paths (`@user`, an address's `@host`).
pub fn imports(path: &str, text: &str) -> Vec<String> {
    match referencing(path) {
        Some((how, base)) => references(how, base, text),
        None => import_words(path, text, true),
    }
}

/// The files an instruction file of a referencing harness ([`Referencing`]) names, outside
/// fenced code, resolved against `base`; addresses (`https://…`), anchors and paths out of
/// the repository are left out.
fn references(how: Referencing, base: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut words: Vec<String> = Vec::new();
        match how {
            Referencing::Kiro => {
                for part in line.split("#[[file:").skip(1) {
                    words.extend(part.split_once("]]").map(|(w, _)| w.trim().to_string()));
                }
            }
            Referencing::Cursor => words.extend(line_imports(line)),
            Referencing::Copilot => {
                for part in line.split("#file:").skip(1) {
                    words.extend(part.split_whitespace().next().map(str::to_string));
                }
                for part in line.split("](").skip(1) {
                    words.extend(part.split_once(')').map(|(w, _)| w.trim().to_string()));
                }
            }
        }
        for word in words {
            let word = word.trim_end_matches(['.', ',', ';', ':', ')', ']', '`']);
            let word = word.split('#').next().unwrap_or(word);
            if word.is_empty()
                || word.contains("://")
                || word.starts_with(['/', '~'])
                || word.starts_with("mailto:")
            {
                continue;
            }
            out.extend(crate::handoff::resolve_link(base, word));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The words after `@` that hold neither `/` nor `.` (`@STYLE`, `@README`), resolved as
/// [`imports`] resolves paths: Claude Code imports them when a file of that name lies beside
/// the importer, so the caller keeps those it finds there (an `@user` mention names none).
pub fn bare_imports(path: &str, text: &str) -> Vec<String> {
    if referencing(path).is_some() {
        return Vec::new();
    }
    import_words(path, text, false)
}

/// The `@` words of [`imports`] (`path_like`) or of [`bare_imports`].
fn import_words(path: &str, text: &str, path_like: bool) -> Vec<String> {
    let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
    let mut out = Vec::new();
    for line in prose_lines(text) {
        for word in line_imports(line) {
            let word = word.trim_end_matches(['.', ',', ';', ':', ')', ']']);
            let is_path = word.contains('/') || word.contains('.');
            if is_path == path_like
                && !word.is_empty()
                && !word.starts_with('/')
                && !word.starts_with('~')
                && let Some(resolved) = crate::handoff::resolve_link(parent, word)
            {
                out.push(resolved);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The lines of `text` outside fenced code blocks. A fence opens with at most three spaces
/// of indentation, and a backtick fence's info string holds no backtick (```` ```sh``` ````
/// is a code span).
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fence: Option<&str> = None;
    text.lines().filter(move |line| {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            return false;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let opens = (t.starts_with("```") && !t.trim_start_matches('`').contains('`'))
            || t.starts_with("~~~");
        if indent <= 3 && opens {
            fence = Some(&t[..3]);
            return false;
        }
        true
    })
}

/// The `@…` words of one line outside its code spans, with `\ ` read as a space.
fn line_imports(line: &str) -> Vec<String> {
    let bytes = line.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|&&c| c == b'`').count();
    let mut out = Vec::new();
    let mut at = 0;
    let mut after_space = true;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let run = run_at(at);
            // The span closes at the next run of exactly as many backticks.
            let mut next = at + run;
            let mut close = None;
            while next < bytes.len() {
                if bytes[next] == b'`' {
                    let other = run_at(next);
                    if other == run {
                        close = Some(next + other);
                        break;
                    }
                    next += other;
                } else {
                    next += 1;
                }
            }
            at = close.unwrap_or(at + run);
            after_space = false;
            continue;
        }
        if bytes[at] == b'@' && after_space {
            let mut word = Vec::new();
            let mut end = at + 1;
            while end < bytes.len() && !bytes[end].is_ascii_whitespace() {
                if bytes[end] == b'\\' && bytes.get(end + 1) == Some(&b' ') {
                    word.push(b' ');
                    end += 2;
                } else {
                    word.push(bytes[end]);
                    end += 1;
                }
            }
            out.push(String::from_utf8_lossy(&word).into_owned());
            at = end;
            after_space = false;
            continue;
        }
        // A no-break space (U+00A0) separates words too.
        after_space = bytes[at].is_ascii_whitespace()
            || (bytes[at] == 0xA0 && at > 0 && bytes[at - 1] == 0xC2);
        at += 1;
    }
    out
}

impl Pattern {
    /// True for an entry that a file's name alone decides.
    fn is_name(self) -> bool {
        matches!(self, Pattern::Name(_) | Pattern::NamePrefix(_))
    }

    /// Matched without regard to ASCII letter case: the file systems most agents run on
    /// (APFS, NTFS) serve `claude.md` to an agent that opens `CLAUDE.md`, so every spelling
    /// is an instruction file (review s23 #4).
    fn matches(self, path: &str) -> bool {
        self.matches_folded(&fold_case(path))
    }

    /// [`Pattern::matches`] for a path [`fold_case`] folded already, without allocating:
    /// `lint --all` asks it of every path of the tree and of what git ignores.
    fn matches_folded(self, path: &str) -> bool {
        let bytes = path.as_bytes();
        let name = path.rsplit('/').next().unwrap_or(path);
        // Each place a path component starts.
        let starts = || std::iter::once(0).chain(memchr::memchr_iter(b'/', bytes).map(|at| at + 1));
        let at_is = |at: usize, what: &str| {
            bytes
                .get(at..at + what.len())
                .is_some_and(|b| b.eq_ignore_ascii_case(what.as_bytes()))
        };
        match self {
            Pattern::Name(n) => name.eq_ignore_ascii_case(n),
            Pattern::Path(p) => {
                bytes.len() >= p.len()
                    && at_is(bytes.len() - p.len(), p)
                    && (bytes.len() == p.len() || bytes[bytes.len() - p.len() - 1] == b'/')
            }
            Pattern::Under(d) => {
                !path.ends_with('/')
                    && starts().any(|at| at_is(at, d) && bytes.get(at + d.len()) == Some(&b'/'))
            }
            Pattern::NamePrefix(p) => name.len() > p.len() && at_is(path.len() - name.len(), p),
            // Each place the prefix starts a component: a name follows it, then a file.
            Pattern::UnderPrefix(d) => starts().filter(|&at| at_is(at, d)).any(|at| {
                path[at + d.len()..]
                    .split_once('/')
                    .is_some_and(|(mode, file)| !mode.is_empty() && !file.is_empty())
            }),
        }
    }
}

/// `path` as a case-insensitive file system compares it with an ASCII name: ASCII letters
/// lowercased, and a letter whose case folding is an ASCII letter (`ſ` U+017F folds to `s`,
/// the Kelvin sign U+212A to `k`; NTFS upper-cases the dotless `ı` to `I`) replaced by it
/// (review s26 #6). APFS and NTFS serve `AGENTſ.md` to an agent that opens `AGENTS.md`, so
/// both spellings are the same instruction file. Other characters stay as they are.
pub fn fold_case(path: &str) -> String {
    if path.is_ascii() {
        return path.to_ascii_lowercase();
    }
    path.chars()
        .map(|c| {
            if c.is_ascii() {
                return c.to_ascii_lowercase();
            }
            let mut folded = c.to_uppercase().flat_map(char::to_lowercase);
            match (folded.next(), folded.next()) {
                (Some(f), None) if f.is_ascii() => f,
                _ => c,
            }
        })
        .collect()
}

/// True when agents read the file at `path` (repository-relative, `/`-separated) as
/// instructions, wherever it sits.
pub fn is_agent_file(path: &str) -> bool {
    let folded = fold_case(path);
    let in_dir = in_agent_dir(&folded);
    entries().any(|f| (in_dir || f.pattern.is_name()) && f.pattern.matches_folded(&folded))
}

/// True when a directory of the folded `path` is one an entry's directory starts with
/// (`.cursor`, `.github`, …): the entries that name a directory cannot match any other path,
/// and most of a tree's paths (`src/…`, `target/…`) are told apart by this alone.
fn in_agent_dir(folded: &str) -> bool {
    let first = &instruction_dir_tables().first;
    let dirs = folded.rsplit_once('/').map_or("", |(d, _)| d);
    !dirs.is_empty()
        && dirs
            .split('/')
            .any(|c| first.binary_search_by(|f| f.as_str().cmp(c)).is_ok())
}

/// True for an agent configuration file ([`AGENT_CONFIGS`]): judged as an instruction file
/// is, and read for what it adds (hooks, MCP servers, permissions) and the files it names.
pub fn is_agent_config(path: &str) -> bool {
    let folded = fold_case(path);
    AGENT_CONFIGS
        .iter()
        .any(|f| f.pattern.matches_folded(&folded))
}

/// The name a file of the table is linted under (which decides JSON or text reading): its
/// own, but a JSON configuration is linted as strict JSON (`config.json`) or as JSON with
/// comments (`config.jsonc`: its strings decoded, its comments' text judged too, review s27
/// #4) as it parses, and one that parses as neither is judged as text, whole, its quoted
/// runs' escapes undone ([`super::escapes::json_text`]), rather than refused as bad input.
pub fn lint_name(path: &str, bytes: &[u8]) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let json = name
        .rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonc"));
    if !is_agent_config(path) || !json {
        return name.to_string();
    }
    if std::str::from_utf8(bytes).is_ok_and(|t| super::json::check_json(t).is_ok()) {
        "config.json".to_string()
    } else if std::str::from_utf8(bytes).is_ok_and(super::agent_config::is_jsonc) {
        "config.jsonc".to_string()
    } else {
        super::escapes::JSON_TEXT.to_string()
    }
}

/// Every entry: the instruction files, then the configuration files.
fn entries() -> impl Iterator<Item = &'static AgentFile> {
    AGENT_FILES.iter().chain(AGENT_CONFIGS)
}

/// The directories of an entry, component by component, that hold instruction files below
/// them: all of an [`Pattern::Under`] path, all but the file of a [`Pattern::Path`], all but
/// the mode's directory of a [`Pattern::UnderPrefix`].
fn dir_components(pattern: Pattern) -> Vec<&'static str> {
    let parts = |p: &'static str| p.split('/').collect::<Vec<_>>();
    match pattern {
        Pattern::Under(d) => parts(d),
        Pattern::Path(p) | Pattern::UnderPrefix(p) => {
            let mut v = parts(p);
            v.pop();
            v
        }
        Pattern::Name(_) | Pattern::NamePrefix(_) => Vec::new(),
    }
}

/// True when `path` (repository-relative) is where agents find a directory of instruction
/// files or a directory on the way to one (`.cursor/rules`, `.cursor`, `.github`, `.claude`,
/// `pkg/.roo`, a mode's `.roo/rules-code`), in any letter case: a symbolic link or a submodule
/// there makes the agent read files whose own paths the gate never judges as instructions.
pub fn is_instruction_dir(path: &str) -> bool {
    let path = fold_case(path);
    let parts: Vec<&str> = path.split('/').collect();
    let tables = instruction_dir_tables();
    // A mode's own directory: `.roo/rules-` followed by a name.
    tables.runs.iter().any(|dirs| ends_with_dirs(&parts, dirs))
        || tables
            .under_prefix
            .iter()
            .any(|d| Pattern::UnderPrefix(d).matches(&format!("{path}/x")))
}

/// True when the path's last components are `dirs`, in any ASCII letter case.
fn ends_with_dirs(parts: &[&str], dirs: &[&str]) -> bool {
    parts.len() >= dirs.len()
        && parts[parts.len() - dirs.len()..]
            .iter()
            .zip(dirs)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// What [`is_instruction_dir`] and [`instruction_dirs_at`] read from the entries, gathered
/// once: the hook asks for every changed path and every package root.
struct InstructionDirs {
    /// Every leading run of an entry's [`dir_components`] (`.cursor`, `.cursor/rules`),
    /// each once.
    runs: Vec<Vec<&'static str>>,
    /// The [`Pattern::UnderPrefix`] entries' paths.
    under_prefix: Vec<&'static str>,
    /// The runs joined by `/`, sorted, each once: [`instruction_dirs_at`] at the root.
    joined: Vec<String>,
    /// The first directory of every entry's runs, lowered, sorted, each once
    /// ([`in_agent_dir`]).
    first: Vec<String>,
}

fn instruction_dir_tables() -> &'static InstructionDirs {
    static TABLES: std::sync::OnceLock<InstructionDirs> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut runs: Vec<Vec<&'static str>> = Vec::new();
        let mut under_prefix = Vec::new();
        for f in entries() {
            let dirs = dir_components(f.pattern);
            runs.extend((1..=dirs.len()).map(|k| dirs[..k].to_vec()));
            if let Pattern::UnderPrefix(d) = f.pattern {
                under_prefix.push(d);
            }
        }
        runs.sort_unstable();
        runs.dedup();
        let mut joined: Vec<String> = runs.iter().map(|r| r.join("/")).collect();
        joined.sort();
        joined.dedup();
        let mut first: Vec<String> = runs
            .iter()
            .filter(|r| r.len() == 1)
            .map(|r| r[0].to_ascii_lowercase())
            .collect();
        first.sort();
        first.dedup();
        InstructionDirs {
            runs,
            under_prefix,
            joined,
            first,
        }
    })
}

/// The paths below `root` (`""` or a package root) that [`is_instruction_dir`] names, as
/// agents spell them: looked up one by one where a whole-tree walk is too dear (the
/// pre-commit hook).
pub fn instruction_dirs_at(root: &str) -> Vec<String> {
    // A common prefix keeps the sorted order and the distinct entries distinct.
    let joined = &instruction_dir_tables().joined;
    if root.is_empty() {
        return joined.clone();
    }
    joined.iter().map(|d| format!("{root}/{d}")).collect()
}

/// The names looked for at a directory's top level when nothing lists the files (an
/// untracked working tree): the [`Pattern::Name`] and [`Pattern::Path`] entries.
pub fn top_level_names() -> impl Iterator<Item = &'static str> {
    entries().filter_map(|f| match f.pattern {
        Pattern::Name(n) | Pattern::Path(n) => Some(n),
        Pattern::Under(_) | Pattern::NamePrefix(_) | Pattern::UnderPrefix(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::{entries, fold_case, is_agent_file};

    #[test]
    fn names_fold_as_case_insensitive_file_systems_compare_them() {
        assert_eq!(fold_case("AGENT\u{17f}.md"), "agents.md");
        assert_eq!(fold_case(".\u{212a}iro/Steering"), ".kiro/steering");
        assert_eq!(fold_case("GEM\u{131}NI.md"), "gemini.md");
        // Letters whose folding is not ASCII stay as they are.
        assert_eq!(fold_case("Caf\u{e9}/\u{130}.md"), "caf\u{e9}/\u{130}.md");
        assert!(is_agent_file("docs/AGENT\u{17f}.md"));
        assert!(!is_agent_file("AGENT\u{15b}.md"));
    }

    #[test]
    fn every_entry_matches_its_examples_and_not_its_near_misses() {
        for f in entries() {
            assert!(!f.hits.is_empty(), "{}: no example", f.tool);
            for h in f.hits {
                assert!(f.pattern.matches(h), "{}: {h} should match", f.tool);
                // Through the directory test that passes over most paths.
                assert!(is_agent_file(h), "{}: {h} should be an agent file", f.tool);
            }
            assert!(
                f.pattern.is_name() || !super::dir_components(f.pattern).is_empty(),
                "{}: an entry that names no directory must be decided by the name",
                f.tool
            );
            for m in f.misses {
                assert!(!is_agent_file(m), "{}: {m} should not match", f.tool);
            }
        }
    }

    #[test]
    fn imports_are_the_paths_after_at_outside_code() {
        let text = "See @docs/style.md and @./rules.md.\nMail me@example.com or @alice.\n\
                    Not `@docs/code.md`, nor ``a ` @docs/span.md``, nor:\n```\n@docs/fenced.md\n```\n\
                    Don`t skip @docs/after-tick.md\n    @docs/indented.md\n\
                    Spaced @docs/team\\ notes.md too.\n\
                    ```sh``` then @docs/after-span.md\nno-break\u{a0}@docs/nbsp.md\n\
                    Home @~/.claude/mine.md, root @/etc/x.md, up @../../../x.md.\n";
        assert_eq!(
            super::imports("pkg/CLAUDE.md", text),
            [
                "pkg/docs/after-span.md",
                "pkg/docs/after-tick.md",
                "pkg/docs/indented.md",
                "pkg/docs/nbsp.md",
                "pkg/docs/style.md",
                "pkg/docs/team notes.md",
                "pkg/rules.md"
            ]
        );
        assert!(super::imports_files("pkg/CLAUDE.md") && !super::imports_files("AGENTS.md"));
        assert_eq!(
            super::bare_imports("pkg/CLAUDE.md", text),
            ["pkg/alice"],
            "words without `/` or `.` are candidates only"
        );
    }

    #[test]
    fn instruction_directories_and_their_parents_are_named() {
        for p in [
            ".cursor/rules",
            ".cursor",
            ".github",
            "pkg/.Claude",
            ".claude/commands",
            ".roo",
            ".roo/rules-code",
            ".junie",
        ] {
            assert!(super::is_instruction_dir(p), "{p}");
        }
        for p in [
            "docs",
            ".cursor/settings",
            "src/rules",
            ".roo/mcp",
            "CLAUDE.md",
        ] {
            assert!(!super::is_instruction_dir(p), "{p}");
        }
        let at_root = super::instruction_dirs_at("");
        assert!(
            at_root.iter().any(|d| d == ".github") && at_root.iter().any(|d| d == ".cursor/rules")
        );
        assert!(
            super::instruction_dirs_at("web")
                .iter()
                .all(|d| d.starts_with("web/."))
        );
    }

    /// [`super::is_instruction_dir`] and [`super::instruction_dirs_at`] read tables gathered
    /// once from the entries; these are the per-call readings they replaced, and both must
    /// answer alike for every entry's directories, their parents and near misses, in other
    /// letter cases, below packages and with a mode's name.
    fn is_instruction_dir_per_call(path: &str) -> bool {
        let path = fold_case(path);
        let parts: Vec<&str> = path.split('/').collect();
        entries().any(|f| {
            let dirs = super::dir_components(f.pattern);
            let prefixes = (1..=dirs.len()).any(|k| super::ends_with_dirs(&parts, &dirs[..k]));
            let mode_dir = match f.pattern {
                super::Pattern::UnderPrefix(d) => {
                    super::Pattern::UnderPrefix(d).matches(&format!("{path}/x"))
                }
                _ => false,
            };
            prefixes || mode_dir
        })
    }

    fn instruction_dirs_at_per_call(root: &str) -> Vec<String> {
        let mut out: Vec<String> = entries()
            .flat_map(|f| {
                let dirs = super::dir_components(f.pattern);
                (1..=dirs.len())
                    .map(|k| dirs[..k].join("/"))
                    .collect::<Vec<_>>()
            })
            .map(|d| {
                if root.is_empty() {
                    d
                } else {
                    format!("{root}/{d}")
                }
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn instruction_directory_tables_answer_as_the_entries_read_per_call() {
        let mut paths: Vec<String> = Vec::new();
        for f in entries() {
            let dirs = super::dir_components(f.pattern);
            for k in 0..=dirs.len() {
                let run = dirs[..k].join("/");
                let pattern = match f.pattern {
                    super::Pattern::Name(p)
                    | super::Pattern::Path(p)
                    | super::Pattern::Under(p)
                    | super::Pattern::NamePrefix(p)
                    | super::Pattern::UnderPrefix(p) => p,
                };
                for base in [run.clone(), pattern.to_string(), format!("{pattern}code")] {
                    for variant in [
                        base.clone(),
                        base.to_ascii_uppercase(),
                        format!("pkg/{base}"),
                        format!("a/b/{}", base.replace('.', "")),
                        format!("{base}/x"),
                        format!("{base}x"),
                        base.trim_end_matches('/')
                            .rsplit('/')
                            .next()
                            .unwrap_or("")
                            .to_string(),
                        format!("{base}/"),
                    ] {
                        paths.push(variant);
                    }
                }
            }
            paths.extend(f.hits.iter().chain(f.misses).map(|p| (*p).to_string()));
        }
        paths.extend(
            [
                "",
                "/",
                "src",
                ".",
                "..",
                "\u{212a}iro",
                ".\u{212a}iro/steering",
            ]
            .map(String::from),
        );
        for p in &paths {
            assert_eq!(
                super::is_instruction_dir(p),
                is_instruction_dir_per_call(p),
                "{p:?}"
            );
        }
        assert!(paths.len() > 500, "{}", paths.len());
        let mut first: Vec<String> = entries()
            .filter_map(|f| {
                super::dir_components(f.pattern)
                    .first()
                    .map(|d| d.to_ascii_lowercase())
            })
            .collect();
        first.sort();
        first.dedup();
        assert_eq!(super::instruction_dir_tables().first, first);
        for root in ["", "web", "packages/api", "A/B"] {
            assert_eq!(
                super::instruction_dirs_at(root),
                instruction_dirs_at_per_call(root),
                "{root}"
            );
        }
    }

    #[test]
    fn ordinary_files_are_not_instructions() {
        for p in [
            "README.md",
            "src/agents.rs",
            "docs/CLAUDE.md.txt",
            ".github/CODEOWNERS",
        ] {
            assert!(!is_agent_file(p), "{p}");
        }
    }
}
