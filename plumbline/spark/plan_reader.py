"""Reading an analyzed plan out of the JVM as `plan.Node`s, in one call, fast.

Catalyst's `TreeNode.toJSON()` is slow on big plans: it looks every node's constructor parameter
names up through Scala runtime reflection (tens of microseconds per node), and a wide plan
repeats each attribute in every projection above it (a 300-column output built in 100 steps:
30,000 attribute nodes, 11 MB of JSON, seconds to write and as long to decode).

The reader compiles, once per JVM, a small Java class (`java/PlumblinePlanJson.java`) with
Janino, the compiler Spark ships for its code generation. It writes what `toJSON()` writes,
with the parameter names cached per class, nodes whose class overrides `jsonFields` (`Literal`)
and rare field values left to Catalyst's own code, and in a compact form (`plan.parse_compact`):
each distinct expression once, referred to by index everywhere else (a projection list as a
list of indices); class names and expression ids' JVM ids once in a string table; node fields
split into plain JSON values and the few that need decoding (trees, expression ids), so that
Python touches only those. The `Node`s are the ones `plan.parse_plan(toJSON())` gives
(tests/spark/test_plan_reader.py). `enable()` compiles the reader in the background.

For the capture (`read_plan(..., collapse=True)`), the reader also collapses each chain of
projections below a projection (a DataFrame built in many `withColumn` steps) into one
`ProjectChain` node that carries the lineage of its output, worked out in the JVM the way
`lineage._project` works it out: a 300-column output built in 100 steps then ships ~300
attributes instead of ~10,000 expressions. A chain holding an expression the Python walk handles
in a way of its own (a subquery, a CASE WHEN, an aggregate...) is written as it is. The column
lineage is the same either way (tests/spark/test_plan_reader.py).

If the class cannot be compiled, or a read fails, the reader logs one line and reads that plan
(and, after a compile failure, every plan) with `toJSON()`.
"""

from __future__ import annotations

import itertools
import logging
import threading
from pathlib import Path
from typing import Any

from plumbline.spark import vocabulary as v
from plumbline.spark.lineage import EXPRESSION_HANDLERS
from plumbline.spark.plan import Node, parse_compact, parse_plan

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("java") / "PlumblinePlanJson.java"
CLASS_NAME = "PlumblinePlanJson"
# each compile's class gets a name of its own: py4j caches methods by class name, so a second
# compile of the same name in one JVM would have its calls sent to the first class's methods
_compiles = itertools.count(1)

_lock = threading.Lock()
# the compiled reader of the last JVM seen: (py4j JVM view, reader or None when it failed)
_reader: list[tuple[Any, Any]] = []


def compile_reader(jvm: Any) -> Any:
    """Compile the Java reader in `jvm` and return an instance (raises on failure)."""
    compiler = jvm.org.codehaus.janino.SimpleCompiler()
    tree_node = jvm.org.apache.spark.sql.catalyst.trees.TreeNode._java_lang_class
    compiler.setParentClassLoader(tree_node.getClassLoader())
    name = f"{CLASS_NAME}{next(_compiles)}"
    compiler.cook(SOURCE.read_text(encoding="utf-8").replace(CLASS_NAME, name))
    reader = compiler.getClassLoader().loadClass(name).newInstance()
    followed = v.ATTRIBUTES | v.ALIASES | v.CASTS
    special = set(EXPRESSION_HANDLERS) - followed
    reader.lineageNames(*(",".join(sorted(s)) for s in (v.ATTRIBUTES, v.ALIASES, v.CASTS, special)))
    return reader


def reader_for(jvm: Any) -> Any | None:
    """The JVM's compiled reader, compiled on first use; None if it cannot be compiled."""
    with _lock:
        if not _reader or _reader[0][0] is not jvm:
            try:
                reader = compile_reader(jvm)
            except Exception as exc:  # a JVM without Janino, a Catalyst it does not fit
                log.warning(
                    "plumbline reads plans with toJSON(): no compact reader (%s)", _line(exc)
                )
                reader = None
            _reader[:] = [(jvm, reader)]
        return _reader[0][1]


def prepare(jvm: Any) -> None:
    """Compile the reader of `jvm` now, on a thread of its own (`enable()` calls this).

    The compile takes from a second to several under load (Janino's first use); started at
    `enable()` it overlaps the job's start instead of delaying the first action's capture. The
    capture thread's first `read_plan` waits for it if it is still running; the job never does.
    """
    threading.Thread(
        target=reader_for, args=(jvm,), name="plumbline-plan-reader", daemon=True
    ).start()


def read_plan(jvm: Any, plan: Any, *, collapse: bool = False) -> Node:
    """The JVM plan `plan` (any Catalyst TreeNode) as a tree of `Node`s.

    With `collapse`, chains of projections are `ProjectChain` nodes (see above): the tree is for
    the column-lineage walk and `jvm.leaf_paths`, not the node-for-node `toJSON()` tree.
    """
    reader = reader_for(jvm) if jvm is not None else None
    if reader is not None:
        try:
            return parse_compact(_compact_text(reader, plan, collapse))
        except Exception as exc:
            log.warning("plumbline compact plan read failed, using toJSON() (%s)", _line(exc))
    return parse_plan(str(plan.toJSON()))


# a compact plan longer than this comes through a temporary file (py4j answers past its 8 KB
# buffer wait ~40 ms on TCP's delayed ACK); no longer once such a file could not be read here
FILE_ABOVE = 6000
_through_files = [True]


def _compact_text(reader: Any, plan: Any, collapse: bool) -> str | bytes:
    """The compact form of `plan`: py4j's answer, or the temporary file it names (then deleted)."""
    limit = FILE_ABOVE if _through_files[0] else 2**31 - 1
    answer = str(reader.compactRead(plan, collapse, limit))
    if answer.startswith("["):
        return answer
    path = Path(answer)
    try:
        return path.read_bytes()
    except OSError as exc:  # a JVM that does not share this machine's files: answers only
        log.warning("plumbline reads plans through py4j answers only (%s)", _line(exc))
        _through_files[0] = False
        return str(reader.compactJson(plan, collapse))
    finally:
        path.unlink(missing_ok=True)


def _line(exc: BaseException) -> str:
    """One line naming the error (a Java exception's own class and message, not py4j's)."""
    java = getattr(exc, "java_exception", None)
    text = str(java.toString() if java is not None else exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__
