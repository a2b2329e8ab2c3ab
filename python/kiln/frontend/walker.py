"""The front end's AST walker: a ``@kiln.jit`` function's statements and
expressions, in order, turned into tile IR text by the language's
operations (``kiln.frontend.ops``), which decide types and write ops
through the IR builder (``kiln.frontend.ir``).

Every emitted op carries ``loc("file.py":line:col)`` of the Python
expression it comes from, so compiler diagnostics point at the user's line.
Python numbers stay compile-time values until an operation with a tile or
scalar value needs them; ``constexpr`` parameters are such values. A number
assigned to a name is typed as Triton types it (a scalar tensor of
``semantics.python_number_type``) but keeps its value, for the places that
need a compile-time constant.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import difflib
import inspect
import itertools
import math
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from kiln import function_source
from kiln import language as kl
from kiln import semantics
from kiln.errors import CompilerRemark, KilnCompileError, KilnError
from kiln.frontend.ir import (Builder, Type, Value, bit_width, location,
                              results_head, symbol)
from kiln.frontend.ops import LanguageOps
from kiln.frontend.values import (DescriptorType, TensorDescriptor,
                                  TupleType, is_literal, plain)


def _suggestion(name: str, names: list[str]) -> str:
    """" (did you mean 'x' or 'y'?)" for the names closest to ``name``,
    or nothing."""
    close = difflib.get_close_matches(name, names, n=2)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"'{c}'" for c in close) + "?)"


#: Triton's loop hints that Kiln takes and does not act on, with why; a
#: loop given one says so in a remark (disallow_acc_multi_buffer, which
#: forbids what Kiln never does, needs none).
_UNUSED_LOOP_HINTS = {
    "loop_unroll_factor": "Kiln does not unroll loops by hint",
    "disable_licm": "Kiln's loop-invariant code motion runs regardless",
}


def is_plain_value(value: Any) -> bool:
    """Whether a global is a value compiled into the kernel (a number, a
    string, a constexpr, a dtype, a tuple of them), not a module or a
    function, which the kernel only calls."""
    if isinstance(value, tuple):
        return all(is_plain_value(v) for v in value)
    return value is None or isinstance(value, (
        bool, int, float, str, kl.constexpr, kl.dtype))


class CodeGenerator(ast.NodeVisitor):
    """Emits the body of one kernel (and of the kernels it calls, inlined)."""

    def __init__(self, fn: Callable, arg_types: dict[str, Type | None],
                 constants: dict[str, Any], debug: bool = False,
                 ir: Builder | None = None) -> None:
        self.fn = fn
        # Debug mode compiles kl.device_assert.
        self.debug = debug
        try:
            source = function_source.read(fn)
        except (OSError, TypeError) as exc:
            raise KilnError(f"cannot read the source of kernel "
                            f"'{fn.__name__}' ({exc}): @kiln.jit compiles "
                            "functions defined in a file") from None
        self.filename, self.first_line = source.filename, source.first_line
        self.source_lines = source.lines
        self.source_text = source.text
        self.tree = source.tree
        self.indent = source.indent
        self.globals = fn.__globals__
        self.captured = function_source.captured(fn)
        self.arg_types = arg_types
        self.constants = constants
        self.scope: dict[str, Any] = {}
        # A kernel's body, which the functions it calls are inlined into.
        self.ir = ir or Builder()
        self.ops = LanguageOps(self, self.ir)
        self.node: ast.AST | None = None
        # Loops around the statement being generated: a return in one
        # leaves more than its body, which is not supported.
        self.loops = 0
        # The functions whose inlined calls this one is in.
        # The functions whose inlining this one's is in, outermost first.
        self.callers: tuple[Callable, ...] = ()
        # The module globals of plain values (numbers, constexprs, dtypes)
        # the kernel and the functions it inlines read, by (module
        # globals, name): the compiled code holds their values.
        self.globals_read: dict[tuple[int, str], tuple[dict, str, Any]] = {}

    def error(self, message: str,
              node: ast.AST | None = None) -> KilnCompileError:
        node = node or self.node
        line = getattr(node, "lineno", 1)
        column = getattr(node, "col_offset", 0) + self.indent + 1
        source = self.source_lines[line - 1] if line <= len(
            self.source_lines) else ""
        return KilnCompileError(message, self.filename,
                                line + self.first_line - 1, column, source)

    def remark(self, message: str, node: ast.AST | None = None) -> None:
        """Says at the user's line why the compiled code is not what was
        asked for (a hint Kiln does not act on), as the GPU compiler's
        remarks do: a CompilerRemark warning."""
        error = self.error(message, node)
        warnings.warn_explicit(message, CompilerRemark, error.filename,
                               error.line)

    def loc(self, node: ast.AST | None = None) -> str:
        node = node or self.node
        line = getattr(node, "lineno", 1) + self.first_line - 1
        column = getattr(node, "col_offset", 0) + self.indent + 1
        return location(self.filename, line, column)

    def generate(self) -> str:
        """The whole ``func.func`` of the kernel."""
        fn_def = self.tree.body[0]
        if not isinstance(fn_def, ast.FunctionDef):
            raise self.error("@kiln.jit applies to a function", fn_def)
        arguments = fn_def.args
        if arguments.vararg or arguments.kwarg:
            raise self.error("a kernel takes named parameters, not *args or "
                             "**kwargs", arguments.vararg or arguments.kwarg)
        params = []
        # In the signature's order, which the launch's arguments follow;
        # keyword-only parameters are parameters like the others.
        for i, arg in enumerate(arguments.posonlyargs + arguments.args +
                                arguments.kwonlyargs):
            name = arg.arg
            if name in self.constants:
                self.scope[name] = self.constants[name]
                continue
            self.scope[name] = self.argument(f"%arg{i}", self.arg_types[name],
                                             arg, params)
        self.visit_body(fn_def.body)
        self.node = fn_def
        self.ir.emit(f"return {self.loc(fn_def)}")
        # libdevice flushes subnormals, as Triton links it.
        header = (f"func.func @{symbol(self.fn.__name__)}"
                  f"({', '.join(params)}) attributes {{tile.libdevice_ftz}} "
                  f"{{")
        # The IR is signless: unsigned types are the front end's.
        return semantics.signless("\n".join([header, *self.ir.lines, "}"]))

    def argument(self, name: str,
                 type_: Type | DescriptorType | TupleType | None,
                 arg: ast.arg, params: list[str]) -> Any:
        """A kernel argument of ``type_`` as the body sees it, its
        parameters named from ``name`` (appended to ``params``): a
        descriptor of its parts, a tuple of its elements (None for a None
        element, the constant)."""
        if type_ is None:
            return None
        if isinstance(type_, DescriptorType):
            return TensorDescriptor(
                self.parameter(f"{name}_base", type_.base, arg, params),
                tuple(self.parameter(f"{name}_size{k}", t, arg, params)
                      for k, t in enumerate(type_.shape)),
                tuple(self.parameter(f"{name}_stride{k}", t, arg, params)
                      for k, t in enumerate(type_.strides)) + (1,),
                type_.block_shape, type_.padding)
        if isinstance(type_, TupleType):
            elements = tuple(self.argument(f"{name}_{k}", t, arg, params)
                             for k, t in enumerate(type_.elements))
            return collections.namedtuple("argument", type_.fields)(
                *elements) if type_.fields is not None else elements
        # As Triton specializes it, an integer argument equal to 1 is the
        # constexpr 1 (the parameter stays, unused): Python's arithmetic
        # on it, and `x_i8 + step` stays int8.
        value = self.parameter(name, replace(type_, known=None), arg, params)
        return value if type_.known is None else type_.known

    def parameter(self, name: str, type_: Type, arg: ast.arg,
                  params: list[str]) -> Value:
        """The kernel parameter ``name`` of ``type_`` (appended to
        ``params``) as the body sees it."""
        value = Value(name, Type(type_.shape, type_.elem))
        attrs = (f" {{tile.divisibility = {type_.divisibility} : i64}}"
                 if type_.divisibility > 1 else "")
        params.append(f"{value.name}: {value.type.ir()}{attrs} "
                      f"{self.loc(arg)}")
        # A descriptor's size or stride known to be 1 is compiled as the
        # constant, an IR one: Triton passes them as integers, so their
        # arithmetic stays the kernel's (truncating division, wrapping).
        return value if type_.known is None else \
            self.ops.materialize(type_.known, value.type)

    def visit_body(self, statements: list[ast.stmt]) -> None:
        for k, statement in enumerate(statements):
            rest = statements[k + 1:]
            if rest and not self.loops and isinstance(statement, ast.If) \
                    and _may_return(statement):
                # `if c: return` and what follows: the rest runs on the
                # paths that do not return, so it moves into them (an
                # scf.if has no early exit).
                statement = ast.copy_location(ast.If(
                    test=statement.test,
                    body=statement.body + ([] if _always_returns(
                        statement.body) else rest),
                    orelse=statement.orelse + ([] if _always_returns(
                        statement.orelse) else rest)), statement)
                rest = []
            self.node = statement
            try:
                self.visit(statement)
            except RecursionError:
                # Each level of an expression is a few Python calls of the
                # walker, so Python's limit is reached before the parser's.
                raise self.error("expression nested too deeply to compile; "
                                 "split it into several statements",
                                 statement) from None
            if "__return__" in self.scope or not rest:
                return  # what follows a return does not run

    def scalar_truth(self, condition: Value, test: ast.expr,
                     what: str) -> Value:
        """A run-time condition as an i1: a number is true where it is not
        zero (a NaN is true), as Triton compiles ``if n:``; a tile or a
        pointer is an error at ``test``."""
        if condition.type.shape and math.prod(condition.type.shape) == 1:
            # Triton takes a tile of one element as its element.
            condition = self.ops.builtin_item(condition)
        if condition.type.shape:
            raise self.error(f"{what} on a tile needs a scalar condition; "
                             "use kl.where for elementwise choices", test)
        if condition.type.is_pointer:
            raise self.error(f"{what} needs a number or boolean condition, "
                             f"not a pointer", test)
        if condition.type.elem == "i1":
            return condition
        return self.ops.compare_zero(condition, "ne")

    def check_no_return(self, scope: dict[str, Any], node: ast.AST,
                        where: str) -> None:
        """A return reached only at run time (in an if on a value, or a
        loop) would need the rest of the kernel moved under it."""
        if "__return__" in scope:
            raise self.error(f"return inside {where} is not supported; "
                             "guard the work with a mask or an if instead",
                             node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # a docstring
        self.expr(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Assert(self, node: ast.Assert) -> None:
        """``assert cond, msg``: ``kl.device_assert(cond, msg)``, as Triton
        compiles it (checked in debug mode only); without a message, the
        condition's source names it."""
        message = self.expr(node.msg) if node.msg is not None else \
            ast.get_source_segment(self.source_text, node.test)
        self.ops.builtin_device_assert(self.expr(node.test), message)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.scope["__return__"] = self.expr(node.value)
        else:
            self.scope["__return__"] = None

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.ops.assigned(self.expr(node.value))
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error("a declaration needs a value")
        value = self.expr(node.value)
        # `n: tl.constexpr = 16` stays a compile-time value.
        if not kl.is_constexpr_annotation(ast.unparse(node.annotation),
                                          self.globals):
            value = self.ops.assigned(value)
        self.assign(node.target, value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error("only names can be augmented")
        current = self.lookup(node.target.id, node.target)
        self.node = node
        self.assign(node.target, self.ops.assigned(
            self.ops.binary(node.op, current, self.expr(node.value))))

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
            return
        if isinstance(target, ast.Tuple) and isinstance(value, tuple):
            if len(target.elts) != len(value):
                raise self.error(f"cannot unpack {len(value)} values into "
                                 f"{len(target.elts)}", target)
            for element, item in zip(target.elts, value):
                self.assign(element, item)
            return
        raise self.error("unsupported assignment target", target)

    def visit_If(self, node: ast.If, condition: Any = None) -> None:
        """``condition``: the test's value, where the caller has it."""
        if condition is None:
            condition = self.expr(node.test)
        if not isinstance(condition, Value):
            self.visit_body(node.body if condition else node.orelse)
            return
        condition = self.scalar_truth(condition, node.test, "an if")
        before = dict(self.scope)
        then_lines, then_scope = self.branch(node.body, before)
        else_lines, else_scope = self.branch(node.orelse, before)
        # A return in a branch: visit_body moved what follows the if into
        # the branches that do not return, so a branch without one ends
        # the function, returning None.
        returns = "__return__" in then_scope or "__return__" in else_scope
        if returns:
            values = [then_scope.pop("__return__", None),
                      else_scope.pop("__return__", None)]
            if any(v is not None for v in values):
                if any(v is None for v in values):
                    raise self.error("a function that returns a value must "
                                     "return one on every path", node)
                then_scope["__return__"], else_scope["__return__"] = values
        names = sorted(n for n in set(then_scope) | set(else_scope)
                       if n in before or (n in then_scope and n in else_scope))
        names = [n for n in names
                 if then_scope.get(n) is not before.get(n)
                 or else_scope.get(n) is not before.get(n)]
        # A tuple (a helper's values, a pair of tiles) merges element by
        # element.
        results = []
        shapes = {}
        for name in names:
            then_leaves = _leaves(then_scope[name])
            else_leaves = _leaves(else_scope[name])
            if len(then_leaves) != len(else_leaves) or \
                    _shape_of(then_scope[name]) != _shape_of(else_scope[name]):
                raise self.error(f"'{name}' holds different numbers of values "
                                 "after the if and the else branch", node)
            shapes[name] = _shape_of(then_scope[name])
            for then_leaf, else_leaf in zip(then_leaves, else_leaves):
                if _same(then_leaf, else_leaf):
                    results.append((name, then_leaf, None))  # kept as is
                    continue
                # No value after a branch (an earlier loop's variable): none
                # after the if, an error only where it is read.
                unmerged = [leaf for leaf in (then_leaf, else_leaf)
                            if isinstance(leaf, _Unmerged)]
                if unmerged:
                    results.append((name, unmerged[0], None))
                    continue
                then_value = self.ops.materialize(then_leaf, None,
                                                  lines=then_lines)
                # A literal meeting a value is typed as a Python number
                # (a kind no higher than the value's takes its type);
                # two literals keep theirs (Triton refuses both).
                else_value = self.ops.materialize(
                    else_leaf if is_literal(then_leaf) else
                    plain(else_leaf), None if is_literal(then_leaf)
                    else then_value.type, lines=else_lines)
                if then_value.type != else_value.type:
                    if name.startswith("__ifexp"):
                        raise self.error(
                            f"the two sides of a conditional expression "
                            f"are {then_value.type.ir()} and "
                            f"{else_value.type.ir()}; they must have one "
                            "type", node)
                    raise self.error(
                        f"'{name}' is {then_value.type.ir()} after the if "
                        f"branch but {else_value.type.ir()} after the else "
                        "branch")
                results.append((name, then_value, else_value))
        self.node = node
        yielded = [(v, w) for _, v, w in results if w is not None]
        types = ", ".join(v.type.ir() for v, _ in yielded)
        result = self.ir.fresh()
        head = results_head(result, len(yielded))
        arrow = f" -> ({types})" if yielded else ""
        self.ir.emit(f"{head}scf.if {condition.name}{arrow} {{")
        self.ir.lines.extend(then_lines)
        self.ir.emit_yield([v for v, _ in yielded], depth=self.ir.depth + 1)
        self.ir.emit("} else {")
        self.ir.lines.extend(else_lines)
        self.ir.emit_yield([w for _, w in yielded], depth=self.ir.depth + 1)
        self.ir.emit(f"}} {self.loc(node)}")
        numbers = itertools.count()
        merged = iter(
            kept if other is None else
            Value(result + (f"#{next(numbers)}" if len(yielded) > 1 else ""),
                  kept.type)
            for _, kept, other in results)
        for name in names:
            self.scope[name] = _rebuild(shapes[name], merged)
        if returns:
            self.scope.setdefault("__return__", None)

    def branch(self, body: list[ast.stmt],
               before: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
        """Generates `body` into its own lines, one level deeper."""
        saved_lines, saved_scope = self.ir.lines, self.scope
        self.ir.lines, self.scope = [], dict(before)
        self.ir.depth += 1
        self.visit_body(body)
        if self.loops:
            self.check_no_return(self.scope, body[0] if body else self.node,
                                 "an if on a run-time value in a loop")
        self.ir.depth -= 1
        lines, scope = self.ir.lines, self.scope
        self.ir.lines, self.scope = saved_lines, saved_scope
        return lines, scope

    def visit_For(self, node: ast.For) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error("a loop variable must be a name", node.target)
        iterator = node.iter
        if not (isinstance(iterator, ast.Call)):
            raise self.error("loops run over range(...), kl.range(...) or "
                             "kl.static_range(...)", iterator)
        callee = self.resolve(iterator.func)
        if callee not in (kl.static_range, kl.range, range):
            raise self.error("loops run over range(...), kl.range(...) or "
                             "kl.static_range(...)", iterator)
        args = [self.expr(a) for a in iterator.args]
        keywords = {kw.arg: self.expr(kw.value) for kw in iterator.keywords}
        flattened = specialized = False
        if callee is not range:
            # Triton's signatures: (arg1, arg2=None, step=None, hints...).
            try:
                bound = inspect.signature(callee).bind(*args, **keywords)
            except TypeError as exc:
                raise self.error(f"kl.{callee.__name__}: {exc}",
                                 iterator) from None
            bound.apply_defaults()
            given = bound.arguments
            for hint, why in _UNUSED_LOOP_HINTS.items():
                value = given.get(hint)
                if isinstance(value, kl.constexpr):
                    value = value.value
                if value not in (None, False):
                    self.remark(f"kl.range({hint}={value!r}) is taken and "
                                f"not acted on: {why}", iterator)
            flatten = given.get("flatten")
            if isinstance(flatten, kl.constexpr):
                flatten = flatten.value
            # The loop and the loop in its body become one (the GPU
            # pipeline's tile-flatten-loops), so the pipeline of the inner
            # loop's loads runs across this loop's iterations.
            flattened = flatten not in (None, False)
            # A producer warpgroup issues the loop's copies (the GPU
            # pipeline's tile-pipeline-loops, on sm_90a).
            specialize = given.get("warp_specialize")
            if isinstance(specialize, kl.constexpr):
                specialize = specialize.value
            specialized = specialize not in (None, False)
            args = list(kl.loop_bounds(given["arg1"], given["arg2"],
                                       given["step"]))
            keywords = {"num_stages": given["num_stages"]} \
                if callee is kl.range else {}
        if callee is kl.static_range:
            args = [a.value if isinstance(a, kl.constexpr) else a
                    for a in args]
            if any(isinstance(a, Value) for a in args):
                raise self.error("kl.static_range needs constant bounds",
                                 iterator)
            try:
                steps = range(*args)
            except (TypeError, ValueError) as exc:
                raise self.error(f"kl.static_range: {exc}", iterator) from None
            if len(steps) > kl.MAX_STATIC_RANGE:
                raise self.error(f"kl.static_range unrolls at most "
                                 f"{kl.MAX_STATIC_RANGE} iterations, not "
                                 f"{len(steps)}; use range()", iterator)
            for i in steps:
                self.scope[node.target.id] = i
                self.loops += 1
                self.visit_body(node.body)
                self.loops -= 1
                if "__return__" in self.scope:
                    break
            return
        if node.orelse:
            raise self.error("for ... else is not supported", node)
        num_stages = None
        for name, value in keywords.items():
            if name != "num_stages":
                raise self.error(f"range() takes no argument '{name}'")
            num_stages = value.value if isinstance(value, kl.constexpr) \
                else value
            if num_stages is None and callee is kl.range:
                continue
            if not isinstance(num_stages, int) or isinstance(num_stages,
                                                             bool) \
                    or num_stages < 0:
                raise self.error("num_stages must be a constant integer of "
                                 "at least 0", iterator)
            # Triton's 0, as its 1: the loop is not pipelined.
            num_stages = max(num_stages, 1)
        if len(args) == 1:
            args = [0, args[0], 1]
        elif len(args) == 2:
            args = [args[0], args[1], 1]
        if len(args) != 3:
            raise self.error("range() takes 1 to 3 arguments", iterator)
        self.node = node
        step_value = args[2].value if isinstance(args[2], kl.constexpr) \
            else args[2]
        if not isinstance(step_value, Value) and step_value == 0:
            raise self.error("range() step must not be zero", iterator)
        # An i32 loop, or an i64 one where a bound is i64; narrower
        # integers (and booleans) are promoted to i32, as in Triton.
        bounds = [self.ops.materialize(a, None if isinstance(a, Value)
                                       else Type((), "i32")) for a in args]
        for k, bound in enumerate(bounds):
            if not bound.type.shape and bound.type.elem in (
                    "i1", "i8", "i16", "ui8", "ui16"):
                bounds[k] = bound = self.ops.cast(bound, kl.int32)
            if bound.type.shape or bound.type.elem not in ("i32", "i64"):
                raise self.error(f"loop bounds must be signed integer "
                                 f"scalars of at most 64 bits, not "
                                 f"{bound.type.ir()}", iterator)
        wide = any(b.type.elem == "i64" for b in bounds)
        counter = Type((), "i64" if wide else "i32")  # the loop's type
        lower, upper, step = (self.ops.cast(b, kl.BY_IR[counter.elem])
                              for b in bounds)
        first, stride = lower, step
        all_trips = self.ops.trip_count(lower, upper, step)
        # A step other than 1 counts trips: the loop runs k = 0 ..
        # trips-1 and the loop variable is lower + k * step, which never
        # passes the bound (a direct loop's variable would wrap past the
        # type's largest value, and never end). An i32 counter runs at most
        # 2^31 - 1 trips.
        largest = (1 << (bit_width(counter.elem) - 1)) - 1
        trips = self.ops.cast(self.ops.builtin_minimum(all_trips, largest),
                              kl.BY_IR[counter.elem])
        counted = isinstance(step_value, Value) or step_value != 1
        if counted:
            lower, upper = self.ops.materialize(0, counter), trips
            step = self.ops.materialize(1, counter)
        # A body may rebind the loop variable (Triton's `start_n =
        # tl.multiple_of(start_n, BLOCK_N)`): that holds for the rest of
        # the iteration, as in Python; the next one starts from the loop's
        # value again.
        reassigned = node.target.id in _assigned_names(node.body)
        before = dict(self.scope)
        carried = [name for name in _carried_names(node.body, before)
                   if name != node.target.id]
        shapes, inits = self.carried_values(carried, before)
        loop, iv = self.ir.fresh(), self.ir.fresh()
        block_args = [Value(f"{loop}_{i}", init.type)
                      for i, init in enumerate(inits)]
        scope = dict(before)
        scope.update(self.rebuilt(carried, shapes, block_args))
        scope[node.target.id] = Value(iv, counter)
        saved_lines, saved_scope = self.ir.lines, self.scope
        self.ir.lines, self.scope = [], scope
        self.ir.depth += 1
        if counted:
            scope[node.target.id] = self.ops.binary(
                ast.Add(), first,
                self.ops.binary(ast.Mult(), Value(iv, counter), stride))
        self.loops += 1
        self.visit_body(node.body)
        self.loops -= 1
        yielded = self.loop_yields(carried, shapes, inits, node)
        self.ir.depth -= 1
        body = self.ir.lines
        self.ir.lines, self.scope = saved_lines, saved_scope
        self.node = node
        head = results_head(loop, len(inits))
        iter_args = ""
        if inits:
            pairs = ", ".join(f"{a.name} = {v.name}"
                              for a, v in zip(block_args, inits))
            types = ", ".join(v.type.ir() for v in inits)
            iter_args = f" iter_args({pairs}) -> ({types})"
        self.ir.emit(f"{head}scf.for {iv} = {lower.name} to {upper.name} step "
                     f"{step.name}{iter_args} : {counter.elem} {{")
        self.ir.lines.extend(body)
        self.ir.emit_yield(yielded, depth=self.ir.depth + 1)
        # How many loads of later iterations the GPU pipeline keeps in
        # flight (tile-pipeline-loops).
        attributes = ([f"tile.num_stages = {num_stages} : i64"]
                      if num_stages is not None else []) + \
            (["tile.flatten"] if flattened else []) + \
            (["tile.warp_specialize = true"] if specialized else [])
        attributes = (f" {{{', '.join(attributes)}}}" if attributes else "")
        self.ir.emit(f"}}{attributes} {self.loc(node)}")
        self.scope.update(self.rebuilt(carried, shapes,
                                       self.results(loop, inits)))
        # After the loop, its variable holds its last value, as in Python
        # (the value before the loop where the body never ran): lower +
        # (trips - 1) * step, exact in the counter's wrapping arithmetic.
        last = self.ops.binary(ast.Add(), first, self.ops.binary(
            ast.Mult(), self.ops.cast(self.ops.binary(ast.Sub(), all_trips, 1),
                                      kl.BY_IR[counter.elem]), stride))
        name = node.target.id
        previous = before.get(name)
        if isinstance(previous, kl.constexpr):
            previous = previous.value
        static = [a.value if isinstance(a, kl.constexpr) else a
                  for a in args]
        if reassigned:
            # Python leaves it what the last iteration assigned.
            last = _Unmerged(f"the loop variable '{name}' is assigned in "
                             "its loop, so it has no value after the loop; "
                             "use another name after it")
        elif name not in before and not (
                all(isinstance(a, int) for a in static) and
                len(range(*static)) > 0):
            last = _Unmerged(f"'{name}' has no value after a loop that may "
                             "not run; give it one before the loop")
        elif name in before and not (
                isinstance(previous, (int, Value)) and
                not isinstance(previous, bool) and
                (not isinstance(previous, Value) or previous.type == counter)
                and getattr(previous, "elem", counter.elem) == counter.elem):
            # Where the body never ran it keeps a value of another type:
            # neither is known to hold.
            kind = previous.type if isinstance(previous, Value) else \
                previous.elem if is_literal(previous) else type(previous)
            last = _Unmerged(
                f"'{name}' is {kind} "
                f"before its loop and {counter.elem} in it, so after a loop "
                "that may not run it has no one type; use another name for "
                "the loop variable")
        elif name in before:
            ran = self.ops.compare(ast.Gt(), all_trips, 0)
            last = self.ops.builtin_where(ran, last, previous)
        self.scope[name] = last

    def carried_values(self, carried: list[str], before: dict[str, Any]
                       ) -> tuple[list[Any], list[Value]]:
        """How each name a loop carries nests tuples, and the values it
        starts from, a tuple's each carried on its own."""
        shapes = [_shape_of(before[name]) for name in carried]
        inits = [self.ops.materialize(leaf, None)
                 for name in carried for leaf in _leaves(before[name])]
        return shapes, inits

    @staticmethod
    def rebuilt(carried: list[str], shapes: list[Any],
                values: list[Value]) -> dict[str, Any]:
        """The carried names bound to ``values`` (one per carried value),
        their tuples rebuilt."""
        leaves = iter(values)
        return {name: _rebuild(shape, leaves)
                for name, shape in zip(carried, shapes)}

    @staticmethod
    def results(op: str, inits: list[Value]) -> list[Value]:
        """The results of the region op ``op``, of ``inits``' types."""
        return [Value(op + (f"#{i}" if len(inits) > 1 else ""), init.type)
                for i, init in enumerate(inits)]

    def loop_yields(self, carried: list[str], shapes: list[Any],
                    inits: list[Value], node: ast.stmt) -> list[Value]:
        """The values a loop body hands to its next iteration: each carried
        name as it stands at the end of the body, in its type before the
        loop (an scf loop's carried types cannot change); a tuple of the
        same shape, element by element."""
        self.check_no_return(self.scope, node, "a loop")
        yielded = []
        starts = iter(inits)
        for name, shape in zip(carried, shapes):
            if _shape_of(self.scope[name]) != shape:
                raise self.error(f"'{name}' holds different numbers of "
                                 "values before the loop and after its "
                                 "body", node)
            for leaf, init in zip(_leaves(self.scope[name]), starts):
                # A literal is typed as a Python number here (an int takes
                # a float's type; a float does not take an int's).
                value = self.ops.materialize(plain(leaf), init.type)
                if value.type != init.type:
                    raise self.error(
                        f"'{name}' is {init.type.ir()} before the loop but "
                        f"{value.type.ir()} after its body", node)
                yielded.append(value)
        return yielded

    def visit_While(self, node: ast.While) -> None:
        """An scf.while: the test runs in its `before` region on the carried
        values, the body in its `do` region."""
        if node.orelse:
            raise self.error("while ... else is not supported", node)
        self.node = node
        before = dict(self.scope)
        carried = _carried_names(node.body, before)
        shapes, inits = self.carried_values(carried, before)
        loop = self.ir.fresh()
        test_args = [Value(f"{loop}_t{i}", v.type)
                     for i, v in enumerate(inits)]
        body_args = [Value(f"{loop}_b{i}", v.type)
                     for i, v in enumerate(inits)]
        saved_lines, saved_scope = self.ir.lines, self.scope
        self.ir.depth += 1

        self.ir.lines = []
        self.scope = {**before, **self.rebuilt(carried, shapes, test_args)}
        condition = self.expr(node.test)
        if isinstance(condition, kl.condition):  # a hint that changes nothing
            if condition.disable_licm not in (None, False):
                self.remark(f"kl.condition(disable_licm="
                            f"{condition.disable_licm!r}) is taken and not "
                            f"acted on: {_UNUSED_LOOP_HINTS['disable_licm']}",
                            node.test)
            condition = condition.condition
        if not isinstance(condition, Value):
            self.ir.depth -= 1
            self.ir.lines, self.scope = saved_lines, saved_scope
            if condition:
                raise self.error("this while loop never ends: its condition "
                                 "is a constant and kernels have no break",
                                 node.test)
            return
        condition = self.scalar_truth(condition, node.test, "a while loop")
        test_lines = self.ir.lines

        self.ir.lines = []
        self.scope = {**before, **self.rebuilt(carried, shapes, body_args)}
        self.loops += 1
        self.visit_body(node.body)
        self.loops -= 1
        yielded = self.loop_yields(carried, shapes, inits, node)
        body_lines = self.ir.lines

        self.ir.depth -= 1
        self.ir.lines, self.scope = saved_lines, saved_scope
        self.node = node
        inner = "  " * (self.ir.depth + 1)
        types = ", ".join(v.type.ir() for v in inits)
        head = results_head(loop, len(inits))
        pairs = ", ".join(f"{a.name} = {v.name}"
                          for a, v in zip(test_args, inits))
        forwarded = (f" {', '.join(a.name for a in test_args)} : {types}"
                     if inits else "")
        block = ", ".join(f"{a.name}: {a.type.ir()}" for a in body_args)
        self.ir.emit(f"{head}scf.while ({pairs}) : ({types}) -> ({types}) {{")
        self.ir.lines.extend(test_lines)
        self.ir.lines.append(
            f"{inner}scf.condition({condition.name}){forwarded}")
        self.ir.emit("} do {")
        self.ir.emit(f"^bb0({block}):")
        self.ir.lines.extend(body_lines)
        self.ir.emit_yield(yielded, depth=self.ir.depth + 1)
        self.ir.emit(f"}} {self.loc(node)}")
        self.scope.update(self.rebuilt(carried, shapes,
                                       self.results(loop, inits)))

    def generic_visit(self, node: ast.AST) -> None:
        raise self.error(f"{type(node).__name__} is not supported in a "
                         "kernel", node)

    def expr(self, node: ast.expr) -> Any:
        saved, self.node = self.node, node
        try:
            method = getattr(self, f"expr_{type(node).__name__}", None)
            if method is None:
                raise self.error(f"{type(node).__name__} is not supported in "
                                 "a kernel", node)
            return method(node)
        finally:
            self.node = saved

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    def expr_ListComp(self, node: ast.ListComp) -> tuple:
        """``[f(x) for x in t if c]`` over a tuple, its conditions
        compile-time values: a tuple, as Triton's."""
        if len(node.generators) != 1:
            raise self.error("a comprehension takes one `for`, as in Triton",
                             node)
        loop = node.generators[0]
        items = self.expr(loop.iter)
        if not isinstance(items, tuple):
            raise self.error("a comprehension runs over a tuple", loop.iter)
        outer = dict(self.scope)
        results = []
        for item in items:
            self.assign(loop.target, item)
            conditions = [self.expr(c) for c in loop.ifs]
            if any(isinstance(c, Value) for c in conditions):
                raise self.error("a comprehension's conditions are "
                                 "compile-time values", loop)
            if all(conditions):
                results.append(self.expr(node.elt))
        # Its variable is its own, as in Python.
        self.scope.clear()
        self.scope.update(outer)
        return tuple(results)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Any:
        self.assign(node.target, self.ops.assigned(self.expr(node.value)))
        return self.lookup(node.target.id, node.target)

    def expr_JoinedStr(self, node: ast.JoinedStr) -> str:
        """An f-string of compile-time values (a static_assert's message),
        formatted as Triton's: each value's str, or the conversion it asks
        for."""
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
                continue
            value = self.expr(part.value)
            if isinstance(value, Value):
                raise self.error("an f-string formats compile-time values, "
                                 f"not {value.type.ir()}", part.value)
            parts.append(("{}" if part.conversion < 0 else
                          "{!" + chr(part.conversion) + "}").format(value))
        return "".join(parts)

    def expr_List(self, node: ast.List) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    def expr_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def lookup(self, name: str, node: ast.AST) -> Any:
        if name in self.scope:
            if isinstance(self.scope[name], _Unmerged):
                raise self.error(self.scope[name].message, node)
            return self.scope[name]
        if name in self.captured:  # a kernel a factory function made
            value = self.captured[name]
            return value.value if isinstance(value, kl.constexpr) else value
        if name in self.globals:
            value = self.globals[name]
            if is_plain_value(value):
                self.globals_read[(id(self.globals), name)] = (
                    self.globals, name, value)
            # A global `MODE = tl.constexpr(1)` is its value (the wrapper
            # itself is always true and equal to no number).
            return value.value if isinstance(value, kl.constexpr) else value
        if name == "print":  # Triton's: a kernel's print prints on device
            return kl.device_print
        builtins = self.globals.get("__builtins__", {})
        if not isinstance(builtins, dict):
            builtins = vars(builtins)
        if name in builtins:
            return builtins[name]
        raise self.error(f"'{name}' is not defined", node)

    def resolve(self, node: ast.expr) -> Any:
        """The Python object a callee expression names (kl.load, a jit
        function, range...)."""
        return self.expr(node)

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if is_literal(base):  # acc = 0; acc.to(kl.int64)
            base = self.ops.materialize(base, None)
        if isinstance(base, Value):
            if node.attr == "to":
                return ("method_to", base)
            if node.attr == "T":
                return self.ops.trans(base)
            if node.attr == "shape":
                return base.type.shape
            if node.attr in ("dtype", "type"):
                dtype = kl.pointer_type(kl.BY_IR[base.type.pointee]) \
                    if base.type.is_pointer else \
                    kl.BY_IR.get(base.type.elem, base.type.elem)
                return dtype if node.attr == "dtype" else \
                    kl.type_of(dtype, base.type.shape)
            if node.attr in kl.TILE_METHODS:
                return ("method", node.attr, base)
            raise self.error(f"tiles have no attribute '{node.attr}'")
        if isinstance(base, TensorDescriptor):
            if node.attr in ("load", "store"):
                return ("method", f"{node.attr}_tensor_descriptor", base)
            if node.attr in ("gather", "scatter"):
                return ("method", f"descriptor_{node.attr}", base)
            kind = node.attr.removeprefix("atomic_")
            if kind != node.attr and kind in kl.DESCRIPTOR_ATOMICS:
                return ("method", "descriptor_atomic", base, kind)
        if node.attr == "value" and (base is None or isinstance(
                base, (bool, int, float, str))):
            return base  # N.value of a constexpr parameter, as Triton
        try:
            value = getattr(base, node.attr)
            return value.value if isinstance(value, kl.constexpr) else value
        except AttributeError as exc:
            # A module that knows why it lacks the name says so
            # (kiln.triton.language names Triton's features Kiln lacks).
            message = str(exc) if isinstance(exc, KilnError) else \
                f"'{node.attr}' is not defined on {base!r}"
            if isinstance(base, TensorDescriptor):
                message = (f"a tensor descriptor has no '{node.attr}': it "
                           f"has load, store, gather, scatter and atomic_"
                           f"{', atomic_'.join(kl.DESCRIPTOR_ATOMICS)}")
            if not isinstance(exc, KilnError) and inspect.ismodule(base):
                message = f"{base.__name__} has no '{node.attr}'" + \
                    _suggestion(node.attr, [name for name in dir(base)
                                            if not name.startswith("_")])
            raise self.error(message) from None

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        return self.ops.binary(node.op, self.expr(node.left),
                               self.expr(node.right))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return self.ops.unary(node.op, self.expr(node.operand))

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        return self.boolean_values((self.expr(v) for v in node.values),
                                   isinstance(node.op, ast.And))

    def boolean_values(self, values: Iterator[Any], conjunction: bool) -> Any:
        """``a and b and ...`` (``or`` where not ``conjunction``) as Triton
        has it: evaluated in order; a compile-time value that decides the
        result (a false one for ``and``) is the result, and nothing after
        it is evaluated; one that does not is dropped; one run-time value
        left is the result as it is, several meet as booleans (a number as
        ``!= 0``). Only compile-time values: the last."""
        dynamic, value = [], None
        for value in values:
            if not isinstance(value, Value):
                if bool(value) != conjunction:
                    return value
                continue
            dynamic.append(value)
        if not dynamic:
            return value
        if len(dynamic) == 1:
            return dynamic[0]
        op = ast.BitAnd() if conjunction else ast.BitOr()
        result = None
        for value in dynamic:
            value = value if value.type.elem == "i1" else \
                self.ops.compare_zero(value, "ne")
            result = value if result is None else \
                self.ops.binary(op, result, value)
        return result

    def expr_Compare(self, node: ast.Compare) -> Any:
        """``a < b``; a chain ``a < b <= c`` is ``a < b and b <= c``, ``b``
        evaluated once."""
        def comparisons() -> Iterator[Any]:
            left = self.expr(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self.expr(comparator)
                yield self.ops.compare(op, left, right)
                left = right
        if len(node.ops) == 1:
            return next(comparisons())
        return self.boolean_values(comparisons(), conjunction=True)

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        """``a if c else b``: on a compile-time ``c``, the taken side; on a
        run-time scalar ``c``, an scf.if yielding the side it takes (only
        that side runs, as in Triton), written as the if statement
        ``if c: t = a else: t = b``."""
        condition = self.expr(node.test)
        if not isinstance(condition, Value):
            return self.expr(node.body if condition else node.orelse)
        name = f"__ifexp{next(self.ir.names)}"

        def assign(value: ast.expr) -> ast.Assign:
            target = ast.copy_location(ast.Name(name, ast.Store()), value)
            return ast.copy_location(ast.Assign([target], value), value)
        statement = ast.copy_location(
            ast.If(node.test, [assign(node.body)], [assign(node.orelse)]),
            node)
        self.visit_If(statement, condition)
        return self.scope.pop(name)

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        index = node.slice
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        if not isinstance(base, Value):
            try:
                return base[self.expr(index)]
            except (IndexError, KeyError, TypeError) as exc:
                raise self.error(f"{exc} (indexing a compile-time value)",
                                 index) from None
        result = base
        dim = 0
        for item in items:
            if isinstance(item, ast.Constant) and item.value is None:
                result = self.ops.expand_dims(result, dim)
                dim += 1
            elif (isinstance(item, ast.Slice) and item.lower is None
                  and item.upper is None and item.step is None):
                dim += 1
            else:
                raise self.error("tiles are indexed with ':' and None only "
                                 "(x[:, None])", item)
        # Dimensions the index leaves out at the end are kept, as numpy's.
        slices = dim - sum(isinstance(i, ast.Constant) for i in items)
        if slices > len(base.type.shape):
            raise self.error(f"index has {slices} dimensions but the tile "
                             f"has {len(base.type.shape)}")
        return result

    def expr_Call(self, node: ast.Call) -> Any:
        callee = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        self.node = node
        if isinstance(callee, tuple) and callee[:1] == ("method_to",):
            return self.ops.method_to(callee[1], *args, **kwargs)
        if isinstance(callee, tuple) and callee[:1] == ("method",):
            # x.sum(axis) is kl.sum(x, axis); desc.atomic_add(o, v) is
            # kl.descriptor_atomic(desc, "add", o, v).
            callee, args = getattr(kl, callee[1]), [*callee[2:], *args]
        name = getattr(callee, "__kiln_builtin__", None)
        if name is not None:
            method = self.ops.builtin(name)
            # Bound as the language function is (Triton's parameter
            # names), passed on by position.
            try:
                bound = inspect.signature(callee).bind(*args, **kwargs)
            except TypeError as exc:
                raise self.error(f"kl.{name}: {exc}")
            bound.apply_defaults()
            return method(*bound.args, **bound.kwargs)
        name = getattr(callee, "__kiln_libdevice__", None)
        if name is not None:
            try:
                bound = inspect.signature(callee).bind(*args, **kwargs)
            except TypeError as exc:
                raise self.error(f"libdevice.{name}: {exc}")
            return self.ops.libdevice(name, list(bound.args))
        if getattr(callee, "__kiln_jit__", False):
            return self.inline(callee, args, kwargs)
        if callee in (min, max) and not any(
                isinstance(a, Value) or is_literal(a) for a in args):
            return callee(*args)
        if callee in (min, max) and len(args) > 1 and not kwargs:
            # min(a, BLOCK) on a run-time scalar, as in Triton's kernels.
            result = args[0]
            for arg in args[1:]:
                result = self.ops.minmax(result, arg, callee.__name__)
            return result
        if callee is isinstance and len(args) == 2 and not kwargs:
            # A value (and an assigned literal) is Triton's tensor.
            if isinstance(args[0], Value) or is_literal(args[0]):
                classes = args[1] if isinstance(args[1], tuple) else \
                    (args[1],)
                return any(isinstance(c, type) and issubclass(kl.tensor, c)
                           for c in classes)
            return isinstance(*args)
        if callee in (int, float, bool, len, range, tuple) and not any(
                isinstance(a, Value) for a in args):
            try:
                return callee(*args, **kwargs)
            except (ValueError, TypeError, ArithmeticError) as exc:
                raise self.error(f"{callee.__name__}(): {exc} (on "
                                 "compile-time values)") from None
        if isinstance(getattr(callee, "__self__", None),
                      (kl.dtype, kl.pointer_type, kl.block_type)):
            return callee(*args, **kwargs)  # x.dtype.is_floating()
        if callee is kl.condition:
            try:
                return kl.condition(*args, **kwargs)
            except TypeError as exc:
                raise self.error(f"kl.condition: {exc}") from None
        if callee in (kl.block_type, kl.constexpr_type, kl.constexpr,
                      kl.slice) and \
                not any(isinstance(a, Value) for a in args):
            return callee(*args, **kwargs)
        if callee is kl.pointer_type and all(isinstance(a, kl.dtype)
                                             for a in args):
            return callee(*args)  # tl.pointer_type(tl.float16)
        name = getattr(callee, "__name__", callee)
        if callable(callee) and not any(
                _holds_run_time_values(a)
                for a in (*args, *kwargs.values())):
            # As Triton: a Python function of compile-time values runs as
            # the kernel compiles (`math.sqrt(D)`, a helper of constexprs).
            try:
                return callee(*map(_compile_time, args),
                              **{k: _compile_time(v)
                                 for k, v in kwargs.items()})
            except Exception as exc:
                raise self.error(f"{name}() on compile-time values: "
                                 f"{type(exc).__name__}: {exc}") from None
        if inspect.isfunction(callee):
            raise self.error(f"cannot call {name} on run-time values in a "
                             f"kernel: it is a plain Python function; "
                             f"decorate it with @kiln.jit (or @triton.jit) "
                             f"to call it from kernels")
        raise self.error(f"cannot call {name} in a kernel")

    def inline(self, callee, args: list, kwargs: dict) -> Any:
        """Generates a nested @kiln.jit call in place."""
        signature = inspect.signature(callee.fn)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise self.error(f"{callee.__name__}(): {exc}") from None
        bound.apply_defaults()
        chain = (*self.callers, self.fn)
        if chain.count(callee.fn) >= MAX_RECURSION:
            raise self.error(f"{callee.__name__}() calls itself more than "
                             f"{MAX_RECURSION} deep; @kiln.jit functions are "
                             "inlined, so a recursion must end as the kernel "
                             "compiles (on constexpr arguments)")
        nested = CodeGenerator(callee.fn, {}, {}, self.debug, self.ir)
        nested.callers = chain
        nested.globals_read = self.globals_read
        nested.scope = dict(bound.arguments)
        for name, parameter in signature.parameters.items():
            # A literal passed for a constexpr parameter is its number.
            if kl.is_constexpr_annotation(parameter.annotation,
                                          callee.fn.__globals__):
                nested.scope[name] = plain(nested.scope[name])
        body = nested.tree.body[0].body
        nested.visit_body(body)
        return nested.scope.get("__return__")


#: How deep a @kiln.jit function's calls of itself may nest: inlined, as
#: Triton's, a recursion ends only where a compile-time value ends it.
MAX_RECURSION = 32


@dataclass(frozen=True)
class _Unmerged:
    """A name whose value after a region op is of no one type: an error
    where it is read."""

    message: str


def _carried_names(body: list[ast.stmt], before: dict[str, Any]
                   ) -> list[str]:
    """The names a loop carries: those its body assigns that hold a
    value before it. One without a value there (the variable of an earlier
    loop, `for i` again in a later loop's body) is the body's own, and
    still has none after the loop."""
    return [name for name in sorted(_assigned_names(body))
            if name in before and not any(
                isinstance(leaf, _Unmerged) for leaf in _leaves(before[name]))]


def _same(a: Any, b: Any) -> bool:
    """Whether two branches leave one value: a constant, or a value from
    before the if."""
    if a is b:
        return True
    if isinstance(a, Value) or type(a) is not type(b) or \
            getattr(a, "elem", None) != getattr(b, "elem", None):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _holds_run_time_values(value: Any) -> bool:
    """Whether ``value`` (or a tuple of values) is known only at run time."""
    return any(isinstance(leaf, (Value, TensorDescriptor))
               for leaf in _leaves(value))


def _compile_time(value: Any) -> Any:
    """A compile-time value as Python code takes it: a constexpr's or an
    assigned literal's number."""
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_compile_time(v) for v in value)
    return plain(value.value if isinstance(value, kl.constexpr) else value)


@dataclasses.dataclass(frozen=True)
class _DescriptorLayout:
    """How a tensor descriptor holds values (see ``_shape_of``): its base,
    sizes and strides, which branches and loops carry; its block and
    padding are compile-time."""
    rank: int
    block_shape: tuple
    padding_option: str


def _leaves(value: Any) -> list[Any]:
    """The values of a (nested) tuple, in order; a value is its own; a
    tensor descriptor's are its base, sizes and strides."""
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, TensorDescriptor):
        return [value.base, *value.shape, *value.strides]
    return [value]


def _shape_of(value: Any) -> Any:
    """How ``value`` nests tuples (and descriptors): None for a value."""
    if isinstance(value, tuple):
        return tuple(_shape_of(item) for item in value)
    if isinstance(value, TensorDescriptor):
        return _DescriptorLayout(len(value.shape), value.block_shape,
                                 value.padding_option)
    return None


def _rebuild(shape: Any, leaves: Iterator[Any]) -> Any:
    """A value of ``shape`` (see ``_shape_of``) from ``leaves``."""
    if shape is None:
        return next(leaves)
    if isinstance(shape, _DescriptorLayout):
        base = next(leaves)
        sizes = tuple(next(leaves) for _ in range(shape.rank))
        strides = tuple(next(leaves) for _ in range(shape.rank))
        return TensorDescriptor(base, sizes, strides, shape.block_shape,
                                shape.padding_option)
    return tuple(_rebuild(item, leaves) for item in shape)


def _may_return(node: ast.stmt) -> bool:
    """Whether a return in ``node`` (outside loops) leaves the function."""
    if isinstance(node, ast.Return):
        return True
    if isinstance(node, ast.If):
        return any(_may_return(s) for s in node.body + node.orelse)
    return False


def _always_returns(statements: list[ast.stmt]) -> bool:
    """Whether every path through ``statements`` ends in a return."""
    for statement in statements:
        if isinstance(statement, ast.Return):
            return True
        if isinstance(statement, ast.If) and statement.orelse and \
                _always_returns(statement.body) and \
                _always_returns(statement.orelse):
            return True
    return False


def _assigned_names(statements: list[ast.stmt]) -> set[str]:
    """Names a block of statements assigns, nested blocks included."""
    names = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names
