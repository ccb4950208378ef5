"""The demo's progress display: a rich progress bar and one line per finished job."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

from plumbline.demo.data import DaySummary
from plumbline.demo.runner import DemoRun, StepOutcome
from plumbline.demo.scenario import Step
from plumbline.demo.summary import LineageSummary


def first_sentence(text: str | None) -> str:
    """Spark's error messages go on with advice; the first sentence says what happened."""
    head, dot, _ = (text or "").partition(". ")
    return head + dot.strip()


class RichReporter:
    """Shows the scenario's progress on a rich console; use as a context manager."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=True,
        )
        self._task = self.progress.add_task("starting", total=None)

    def __enter__(self) -> RichReporter:
        self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.progress.stop()

    def landed(self, summary: DaySummary) -> None:
        self.console.print(
            f"[bold]{summary.day}[/] landed raw files: "
            f"{summary.web_orders} web + {summary.store_orders} store orders, "
            f"{summary.customers} customers, {summary.products} products, {summary.returns} returns"
        )

    def started(self, step: Step, index: int, total: int) -> None:
        self.progress.update(self._task, description=step.label, completed=index - 1, total=total)

    def finished(self, outcome: StepOutcome) -> None:
        self.progress.advance(self._task)
        label = outcome.step.label
        if outcome.failed:
            mark = "[yellow]✗ failed as planned[/]" if outcome.step.expect_failure else "[red]✗[/]"
            self.console.print(
                f"  {mark} {label} ({outcome.seconds:.1f}s): {first_sentence(outcome.error)}"
            )
        else:
            self.console.print(f"  [green]✓[/] {label} ({outcome.seconds:.1f}s)")


def summary_table(run: DemoRun, lineage: LineageSummary) -> Table:
    """The end-of-demo table: what the lineage server now holds."""
    table = Table(title="Lineage captured", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("datasets", str(lineage.datasets))
    table.add_row("jobs", str(lineage.jobs))
    table.add_row("runs", str(lineage.runs))
    table.add_row("column edges", str(lineage.column_edges))
    table.add_row("failed runs", str(lineage.failed_runs))
    table.add_row("job steps run", str(len(run.outcomes)))
    return table
