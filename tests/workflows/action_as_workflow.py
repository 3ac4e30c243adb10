"""Writes action.yml's steps as a workflow (python3 action_as_workflow.py ACTION OUT), so
actionlint, which lints workflows only, checks the composite action's steps, expressions and
`uses:` references too. The action's inputs become workflow_call inputs of the same names."""
import json
import sys

import yaml  # PyYAML, a dependency of pre-commit (installed in the same venv by .ci/run)

with open(sys.argv[1]) as f:
    action = yaml.safe_load(f)
assert action["runs"]["using"] == "composite", "not a composite action"
workflow = {
    "name": "action.yml as a workflow",
    "on": {
        "workflow_call": {
            "inputs": {
                name: {"type": "string", "required": False, "default": spec.get("default", "")}
                for name, spec in action.get("inputs", {}).items()
            }
        }
    },
    "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
}
with open(sys.argv[2], "w") as f:
    json.dump(workflow, f, indent=2)
