"""The two reference agents that validate a task: oracle runs the reference solution, nop does nothing."""

from __future__ import annotations

from res_repro.agents.base import Agent, AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.sandbox.base import APP_DIR, SOLUTION_DIR, Sandbox


class OracleAgent(Agent):
    """Copies solution/ to /solution and runs ``solve.sh`` from /app."""

    name = "oracle"

    def run(self, task: Task, sandbox: Sandbox) -> AgentOutcome:
        """Run the reference solution; a timeout is reported as the time limit."""
        sandbox.put_dir(task.solution_dir, SOLUTION_DIR)
        result = sandbox.exec(
            f"bash {SOLUTION_DIR}/solve.sh",
            timeout=task.config.solution.timeout_sec,
            cwd=APP_DIR,
            env=task.config.solution.env,
        )
        stop = StopReason.TIME_LIMIT if result.timed_out else StopReason.ANSWERED
        message = {"role": "tool", "name": "solve.sh", "exit_code": result.exit_code}
        return AgentOutcome(stop_reason=stop, turns=1, tool_calls=1, messages=[message])


class NopAgent(Agent):
    """Does nothing: a task whose verifier passes under nop is invalid."""

    name = "nop"

    def run(self, task: Task, sandbox: Sandbox) -> AgentOutcome:
        """Return at once without touching the environment."""
        return AgentOutcome(stop_reason=StopReason.ANSWERED)
