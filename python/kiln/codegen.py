"""Translation of a ``@kiln.jit`` function's AST into tile IR text.

Every emitted op carries ``loc("file.py":line:col)`` of the Python
expression it comes from, so compiler diagnostics point at the user's line.
Python numbers stay compile-time values until an operation with a tile or
scalar value needs them; ``constexpr`` parameters are such values. A number
assigned to a name is typed as Triton types it (a scalar tensor of
``semantics.literal_type``) but keeps its value, for the places that need a
compile-time constant.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from kiln import language as kl
from kiln import float8, function_source, ir_text
from kiln import philox
from kiln import semantics
from kiln.errors import (CompilationError, CompilerRemark, Diagnostic,
                         KilnError, Severity)
from kiln.extra import libdevice


def _suggestion(name: str, names: list[str]) -> str:
    """" (did you mean 'x' or 'y'?)" for the names closest to ``name``,
    or nothing."""
    close = difflib.get_close_matches(name, names, n=2)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"'{c}'" for c in close) + "?)"


class KilnCompileError(CompilationError):
    """A kernel the JIT cannot translate; points at the Python source. A
    ``kiln.CompilationError``, whose one diagnostic it carries."""

    def __init__(self, message: str, filename: str, line: int, column: int,
                 source_line: str = "") -> None:
        self.message, self.filename = message, filename
        self.line, self.column = line, column
        self.diagnostics = [Diagnostic(Severity.ERROR, filename, line, column,
                                       message)]
        text = f'{filename}:{line}:{column}: error: {message}'
        if source_line:
            text += f"\n{source_line.rstrip()}\n{' ' * (column - 1)}^"
        KilnError.__init__(self, text)


@dataclass(frozen=True)
class Type:
    """A scalar (``shape == ()``) or a tile of ``elem`` (an MLIR scalar
    type: ``f32``, ``i32``, ``!tile.ptr<f16>``...). Kernel arguments may
    also carry what a launch specialized them on: a power of two dividing
    them (`divisibility`) or their value (`known`)."""

    shape: tuple[int, ...]
    elem: str
    divisibility: int = 1
    known: int | None = None

    def divisible_by(self, divisor: int) -> Type:
        return Type(self.shape, self.elem, divisor, self.known)

    def known_to_be(self, value: int) -> Type:
        return Type(self.shape, self.elem, self.divisibility, value)

    def ir(self) -> str:
        if not self.shape:
            return self.elem
        return f"tensor<{'x'.join(map(str, self.shape))}x{self.elem}>"

    def with_elem(self, elem: str) -> Type:
        return Type(self.shape, elem)

    def with_shape(self, shape: tuple[int, ...]) -> Type:
        return Type(tuple(shape), self.elem)

    @property
    def is_pointer(self) -> bool:
        return self.elem.startswith("!tile.ptr<")

    @property
    def pointee(self) -> str:
        return self.elem[len("!tile.ptr<"):-1]

    @property
    def is_block_pointer(self) -> bool:
        return self.elem.startswith("!tile.block_ptr<")

    @property
    def block(self) -> tuple[tuple[int, ...], str]:
        """A block pointer's block shape and element type."""
        *sizes, elem = self.elem[len("!tile.block_ptr<"):-1].split("x")
        return tuple(map(int, sizes)), elem

    @property
    def is_float(self) -> bool:
        return self.elem.startswith(("f", "bf"))

    @property
    def is_int(self) -> bool:
        return self.elem.startswith(("i", "ui"))

    @property
    def is_unsigned(self) -> bool:
        return semantics.is_unsigned(self.elem)


@dataclass(frozen=True)
class TensorDescriptor(kl.tensor_descriptor):
    """A ``kl.make_tensor_descriptor`` (or a host descriptor argument):
    compile-time fields, each access made a block pointer of them."""

    base: Any
    shape: tuple
    strides: tuple
    block_shape: tuple
    padding_option: str

    @property
    def dtype(self) -> Any:
        return kl.BY_IR[self.base.type.pointee]


@dataclass(frozen=True)
class DescriptorType:
    """A host ``TensorDescriptor`` argument (kiln/tensor_descriptor.py),
    passed as its base pointer and its sizes and strides but the last
    (which is 1), each typed and specialized as an argument of its own;
    the block shape and the padding are compile-time."""

    base: Type
    shape: tuple[Type, ...]
    strides: tuple[Type, ...]
    block_shape: tuple[int, ...]
    padding: str


@dataclass(frozen=True)
class Value:
    """An SSA value of the generated IR."""

    name: str
    type: Type


class _LiteralInt(int):
    """An integer or boolean a kernel assigned to a name (``n = 16``):
    typed ``elem`` in arithmetic, as Triton's scalar tensor, and still an
    int where a compile-time constant is needed (shapes, ``arange``)."""

    elem: str


class _LiteralFloat(float):
    """A float a kernel assigned to a name (``scale = 0.5``), typed
    ``elem`` in arithmetic as Triton's scalar tensor."""

    elem: str


def _is_literal(value: Any) -> bool:
    return isinstance(value, (_LiteralInt, _LiteralFloat))


def _plain(value: Any) -> Any:
    """An assigned literal's Python number; anything else as it is."""
    if isinstance(value, _LiteralFloat):
        return float(value)
    if isinstance(value, _LiteralInt):
        return bool(value) if value.elem == "i1" else int(value)
    return value


def _literal(value: Any, elem: str) -> _LiteralInt | _LiteralFloat:
    literal = _LiteralFloat(value) if isinstance(value, float) \
        else _LiteralInt(value)
    literal.elem = elem
    return literal


def pointer_type(elem: str) -> str:
    return f"!tile.ptr<{elem}>"


def _bits(elem: str) -> int:
    return kl.BY_IR[elem].bits


#: Bit patterns of +inf, -inf and a quiet NaN, which MLIR spells in hex.
_SPECIAL_FLOATS = {
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
}


def _float_literal(value: float, elem: str) -> str:
    value = float(value)
    if value != value:
        return _SPECIAL_FLOATS[elem][2]
    if value in (float("inf"), float("-inf")):
        return _SPECIAL_FLOATS[elem][0 if value > 0 else 1]
    # MLIR's float literals need a point before any exponent: 1.0e-07.
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


class CodeGenerator(ast.NodeVisitor):
    """Emits the body of one kernel (and of the kernels it calls, inlined)."""

    def __init__(self, fn: Callable, arg_types: dict[str, Type | None],
                 constants: dict[str, Any], debug: bool = False) -> None:
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
        self.arg_types = arg_types
        self.constants = constants
        self.scope: dict[str, Any] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.names = itertools.count()
        self.node: ast.AST | None = None
        # Loops around the statement being generated: a return in one
        # leaves more than its body, which is not supported.
        self.loops = 0
        # The functions whose inlined calls this one is in.
        self.callers: frozenset[Callable] = frozenset()
        # The module globals of plain values (numbers, constexprs, dtypes)
        # the kernel and the functions it inlines read, by (module
        # globals, name): the compiled code holds their values.
        self.globals_read: dict[tuple[int, str], tuple[dict, str, Any]] = {}

    # -- Output -------------------------------------------------------------

    def error(self, message: str, node: ast.AST | None = None) -> KilnCompileError:
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
        return ir_text.location(self.filename, line, column)

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def fresh(self) -> str:
        return f"%v{next(self.names)}"

    def op(self, text: str, type_: Type) -> Value:
        """Emits ``%v = text loc(...)`` and returns %v."""
        name = self.fresh()
        self.emit(f"{name} = {text} {self.loc()}")
        return Value(name, type_)

    # -- Entry --------------------------------------------------------------

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
            type_ = self.arg_types[name]
            if isinstance(type_, DescriptorType):
                self.scope[name] = TensorDescriptor(
                    self.parameter(f"%arg{i}_base", type_.base, arg, params),
                    tuple(self.parameter(f"%arg{i}_size{k}", t, arg, params)
                          for k, t in enumerate(type_.shape)),
                    tuple(self.parameter(f"%arg{i}_stride{k}", t, arg,
                                         params)
                          for k, t in enumerate(type_.strides)) + (1,),
                    type_.block_shape, type_.padding)
                continue
            self.scope[name] = self.parameter(f"%arg{i}", type_, arg, params)
        self.visit_body(fn_def.body)
        self.node = fn_def
        self.emit(f"return {self.loc(fn_def)}")
        header = (f"func.func @{ir_text.symbol(self.fn.__name__)}"
                  f"({', '.join(params)}) {{")
        # The IR is signless: unsigned types are the front end's.
        return semantics.signless("\n".join([header, *self.lines, "}"]))

    def parameter(self, name: str, type_: Type, arg: ast.arg,
                  params: list[str]) -> Value:
        """The kernel parameter ``name`` of ``type_`` (appended to
        ``params``) as the body sees it."""
        value = Value(name, Type(type_.shape, type_.elem))
        attrs = (f" {{tile.divisibility = {type_.divisibility} : i64}}"
                 if type_.divisibility > 1 else "")
        params.append(f"{value.name}: {value.type.ir()}{attrs} "
                      f"{self.loc(arg)}")
        # An argument known to be 1 is compiled as the constant, an IR one:
        # its arithmetic stays the kernel's (truncating division,
        # wrapping), which canonicalization folds.
        return value if type_.known is None else \
            self.materialize(type_.known, value.type)

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

    def check_no_return(self, scope: dict[str, Any], node: ast.AST,
                        where: str) -> None:
        """A return reached only at run time (in an if on a value, or a
        loop) would need the rest of the kernel moved under it."""
        if "__return__" in scope:
            raise self.error(f"return inside {where} is not supported; "
                             "guard the work with a mask or an if instead",
                             node)

    # -- Statements ---------------------------------------------------------

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # a docstring
        self.expr(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.scope["__return__"] = self.expr(node.value)
        else:
            self.scope["__return__"] = None

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.assigned(self.expr(node.value))
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error("a declaration needs a value")
        value = self.expr(node.value)
        # `n: tl.constexpr = 16` stays a compile-time value.
        if not kl.is_constexpr_annotation(ast.unparse(node.annotation),
                                          self.globals):
            value = self.assigned(value)
        self.assign(node.target, value)

    def assigned(self, value: Any) -> Any:
        """What a name holds after ``name = value``: Triton's rule, a
        Python number (or a constexpr one) becomes a scalar tensor, typed
        by ``semantics.literal_type``; tuples element by element."""
        if isinstance(value, tuple) and type(value) is tuple:
            return tuple(self.assigned(v) for v in value)
        number = value.value if isinstance(value, kl.constexpr) else value
        if _is_literal(number) or not isinstance(number, (bool, int, float)):
            return value
        try:
            return _literal(number, semantics.literal_type(number))
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error("only names can be augmented")
        current = self.lookup(node.target.id, node.target)
        self.node = node
        self.assign(node.target, self.assigned(
            self.binary(node.op, current, self.expr(node.value))))

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
        if condition.type != Type((), "i1"):
            raise self.error("an if on a tile needs a scalar condition; use "
                             "kl.where for elementwise choices", node.test)
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
                then_value = self.materialize(then_leaf, None,
                                              lines=then_lines)
                # A literal meeting a value is typed as a Python number
                # (a kind no higher than the value's takes its type);
                # two literals keep theirs (Triton refuses both).
                else_value = self.materialize(
                    else_leaf if _is_literal(then_leaf) else
                    _plain(else_leaf), None if _is_literal(then_leaf)
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
        result = self.fresh()
        head = _results_head(result, len(yielded))
        arrow = f" -> ({types})" if yielded else ""
        self.emit(f"{head}scf.if {condition.name}{arrow} {{")
        self.lines.extend(then_lines)
        self.emit_yield([v for v, _ in yielded], depth=self.depth + 1)
        self.emit("} else {")
        self.lines.extend(else_lines)
        self.emit_yield([w for _, w in yielded], depth=self.depth + 1)
        self.emit(f"}} {self.loc(node)}")
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

    def bind_results(self, op: str, names: list[tuple[str, Type]]) -> None:
        """Points each name at its result of the region op `op`."""
        for i, (name, type_) in enumerate(names):
            suffix = f"#{i}" if len(names) > 1 else ""
            self.scope[name] = Value(op + suffix, type_)

    def branch(self, body: list[ast.stmt],
               before: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
        """Generates `body` into its own lines, one level deeper."""
        saved_lines, saved_scope = self.lines, self.scope
        self.lines, self.scope = [], dict(before)
        self.depth += 1
        self.visit_body(body)
        if self.loops:
            self.check_no_return(self.scope, body[0] if body else self.node,
                                 "an if on a run-time value in a loop")
        self.depth -= 1
        lines, scope = self.lines, self.scope
        self.lines, self.scope = saved_lines, saved_scope
        return lines, scope

    def emit_yield(self, values: list[Value], depth: int) -> None:
        text = "scf.yield"
        if values:
            text += (f" {', '.join(v.name for v in values)} : "
                     f"{', '.join(v.type.ir() for v in values)}")
        self.lines.append("  " * depth + text)

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
                    or num_stages < 1:
                raise self.error("num_stages must be a constant integer of "
                                 "at least 1", iterator)
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
        # An i32 loop, or an i64 one where a bound is i64.
        bounds = [self.materialize(a, None if isinstance(a, Value)
                                   else Type((), "i32")) for a in args]
        for bound in bounds:
            if bound.type.shape or bound.type.elem not in ("i32", "i64"):
                raise self.error(f"loop bounds must be i32 or i64 scalars, "
                                 f"not {bound.type.ir()}", iterator)
        wide = any(b.type.elem == "i64" for b in bounds)
        counter = Type((), "i64" if wide else "i32")  # the loop's type
        lower, upper, step = (self.cast(b, kl.BY_IR[counter.elem])
                              for b in bounds)
        first, stride = lower, step
        all_trips = self.trip_count(lower, upper, step)
        # A step other than 1 counts trips: the loop runs k = 0 ..
        # trips-1 and the loop variable is lower + k * step, which never
        # passes the bound (a direct loop's variable would wrap past the
        # type's largest value, and never end). An i32 counter runs at most
        # 2^31 - 1 trips.
        largest = (1 << (_bits(counter.elem) - 1)) - 1
        trips = self.cast(self.builtin_minimum(all_trips, largest),
                          kl.BY_IR[counter.elem])
        counted = isinstance(step_value, Value) or step_value != 1
        if counted:
            lower, upper = self.materialize(0, counter), trips
            step = self.materialize(1, counter)
        # A body may rebind the loop variable (Triton's `start_n =
        # tl.multiple_of(start_n, BLOCK_N)`): that holds for the rest of
        # the iteration, as in Python; the next one starts from the loop's
        # value again.
        reassigned = node.target.id in _assigned_names(node.body)
        before = dict(self.scope)
        carried = [name for name in sorted(_assigned_names(node.body))
                   if name in before and name != node.target.id]
        inits = [self.materialize(before[name], None) for name in carried]
        loop, iv = self.fresh(), self.fresh()
        block_args = {name: Value(f"{loop}_{i}", init.type)
                      for i, (name, init) in enumerate(zip(carried, inits))}
        scope = dict(before)
        scope.update(block_args)
        scope[node.target.id] = Value(iv, counter)
        saved_lines, saved_scope = self.lines, self.scope
        self.lines, self.scope = [], scope
        self.depth += 1
        if counted:
            scope[node.target.id] = self.binary(
                ast.Add(), first,
                self.binary(ast.Mult(), Value(iv, counter), stride))
        self.loops += 1
        self.visit_body(node.body)
        self.loops -= 1
        yielded = self.loop_yields(carried, inits, node)
        self.depth -= 1
        body, self.lines, self.scope = self.lines, saved_lines, saved_scope
        self.node = node
        head = _results_head(loop, len(carried))
        iter_args = ""
        if carried:
            pairs = ", ".join(f"{block_args[n].name} = {v.name}"
                              for n, v in zip(carried, inits))
            types = ", ".join(v.type.ir() for v in inits)
            iter_args = f" iter_args({pairs}) -> ({types})"
        self.emit(f"{head}scf.for {iv} = {lower.name} to {upper.name} step "
                  f"{step.name}{iter_args} : {counter.elem} {{")
        self.lines.extend(body)
        self.emit_yield(yielded, depth=self.depth + 1)
        # How many loads of later iterations the GPU pipeline keeps in
        # flight (tile-pipeline-loops).
        stages = (f" {{tile.num_stages = {num_stages} : i64}}"
                  if num_stages is not None else "")
        self.emit(f"}}{stages} {self.loc(node)}")
        self.bind_results(loop, [(name, init.type)
                                 for name, init in zip(carried, inits)])
        # After the loop, its variable holds its last value, as in Python
        # (the value before the loop where the body never ran): lower +
        # (trips - 1) * step, exact in the counter's wrapping arithmetic.
        last = self.binary(ast.Add(), first, self.binary(
            ast.Mult(), self.cast(self.binary(ast.Sub(), all_trips, 1),
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
                previous.elem if _is_literal(previous) else type(previous)
            last = _Unmerged(
                f"'{name}' is {kind} "
                f"before its loop and {counter.elem} in it, so after a loop "
                "that may not run it has no one type; use another name for "
                "the loop variable")
        elif name in before:
            ran = self.op(f"arith.cmpi sgt, {all_trips.name}, "
                          f"{self.materialize(0, Type((), 'i64')).name} : "
                          "i64", Type((), "i1"))
            last = self.builtin_where(ran, last, previous)
        self.scope[name] = last

    def trip_count(self, lower: Value, upper: Value, step: Value) -> Value:
        """How many times ``range(lower, upper, step)`` runs, as Python
        counts (none for a step of 0, where Python raises), an i64 (an i32
        range's distance overflows i32)."""
        i64 = Type((), "i64")
        lower, upper, step = (self.cast(v, kl.int64)
                              for v in (lower, upper, step))

        def compare(predicate: str, x: Value, y: int) -> Value:
            return self.op(f"arith.cmpi {predicate}, {x.name}, "
                           f"{self.materialize(y, i64).name} : i64",
                           Type((), "i1"))
        up = compare("sgt", step, 0)
        distance = self.builtin_where(up, self.binary(ast.Sub(), upper, lower),
                                      self.binary(ast.Sub(), lower, upper))
        magnitude = self.builtin_maximum(
            self.builtin_where(up, step, self.binary(ast.Sub(), 0, step)), 1)
        trips = self.builtin_maximum(self.builtin_cdiv(distance, magnitude),
                                     0)
        return self.builtin_where(compare("eq", step, 0), 0, trips)

    def loop_yields(self, carried: list[str], inits: list[Value],
                    node: ast.stmt) -> list[Value]:
        """The values a loop body hands to its next iteration: each carried
        name as it stands at the end of the body, in its type before the
        loop (an scf loop's carried types cannot change)."""
        self.check_no_return(self.scope, node, "a loop")
        yielded = []
        for name, init in zip(carried, inits):
            # A literal is typed as a Python number here (an int takes a
            # float's type; a float does not take an int's).
            value = self.materialize(_plain(self.scope[name]), init.type)
            if value.type != init.type:
                raise self.error(f"'{name}' is {init.type.ir()} before the "
                                 f"loop but {value.type.ir()} after its body",
                                 node)
            yielded.append(value)
        return yielded

    def visit_While(self, node: ast.While) -> None:
        """An scf.while: the test runs in its `before` region on the carried
        values, the body in its `do` region."""
        if node.orelse:
            raise self.error("while ... else is not supported", node)
        self.node = node
        before = dict(self.scope)
        carried = [name for name in sorted(_assigned_names(node.body))
                   if name in before]
        inits = [self.materialize(before[name], None) for name in carried]
        loop = self.fresh()
        test_args = [Value(f"{loop}_t{i}", v.type) for i, v in enumerate(inits)]
        body_args = [Value(f"{loop}_b{i}", v.type) for i, v in enumerate(inits)]
        saved_lines, saved_scope = self.lines, self.scope
        self.depth += 1

        self.lines, self.scope = [], {**before, **dict(zip(carried, test_args))}
        condition = self.expr(node.test)
        if isinstance(condition, kl.condition):  # a hint that changes nothing
            if condition.disable_licm not in (None, False):
                self.remark(f"kl.condition(disable_licm="
                            f"{condition.disable_licm!r}) is taken and not "
                            f"acted on: {_UNUSED_LOOP_HINTS['disable_licm']}",
                            node.test)
            condition = condition.condition
        if not isinstance(condition, Value):
            self.depth -= 1
            self.lines, self.scope = saved_lines, saved_scope
            if condition:
                raise self.error("this while loop never ends: its condition "
                                 "is a constant and kernels have no break",
                                 node.test)
            return
        if condition.type != Type((), "i1"):
            raise self.error("a while loop needs a scalar condition, not "
                             f"{condition.type.ir()}", node.test)
        test_lines = self.lines

        self.lines, self.scope = [], {**before, **dict(zip(carried, body_args))}
        self.loops += 1
        self.visit_body(node.body)
        self.loops -= 1
        yielded = self.loop_yields(carried, inits, node)
        body_lines = self.lines

        self.depth -= 1
        self.lines, self.scope = saved_lines, saved_scope
        self.node = node
        inner = "  " * (self.depth + 1)
        types = ", ".join(v.type.ir() for v in inits)
        head = _results_head(loop, len(carried))
        pairs = ", ".join(f"{a.name} = {v.name}"
                          for a, v in zip(test_args, inits))
        forwarded = (f" {', '.join(a.name for a in test_args)} : {types}"
                     if carried else "")
        block = ", ".join(f"{a.name}: {a.type.ir()}" for a in body_args)
        self.emit(f"{head}scf.while ({pairs}) : ({types}) -> ({types}) {{")
        self.lines.extend(test_lines)
        self.lines.append(f"{inner}scf.condition({condition.name}){forwarded}")
        self.emit("} do {")
        self.emit(f"^bb0({block}):")
        self.lines.extend(body_lines)
        self.emit_yield(yielded, depth=self.depth + 1)
        self.emit(f"}} {self.loc(node)}")
        self.bind_results(loop, [(name, init.type)
                                 for name, init in zip(carried, inits)])

    def generic_visit(self, node: ast.AST) -> None:
        raise self.error(f"{type(node).__name__} is not supported in a "
                         "kernel", node)

    # -- Expressions --------------------------------------------------------

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

    def expr_List(self, node: ast.List) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    def expr_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def lookup(self, name: str, node: ast.AST) -> Any:
        if name in self.scope:
            if isinstance(self.scope[name], _Unmerged):
                raise self.error(self.scope[name].message, node)
            return self.scope[name]
        if name in self.globals:
            value = self.globals[name]
            if is_plain_value(value):
                self.globals_read[(id(self.globals), name)] = (
                    self.globals, name, value)
            return value
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
        if _is_literal(base):  # acc = 0; acc.to(kl.int64)
            base = self.materialize(base, None)
        if isinstance(base, Value):
            if node.attr == "to":
                return ("method_to", base)
            if node.attr == "T":
                return self.trans(base)
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
        if isinstance(base, TensorDescriptor) and node.attr in ("load",
                                                                "store"):
            return ("method", f"{node.attr}_tensor_descriptor", base)
        try:
            return getattr(base, node.attr)
        except AttributeError as exc:
            # A module that knows why it lacks the name says so
            # (kiln.triton.language names Triton's features Kiln lacks).
            message = str(exc) if isinstance(exc, KilnError) else \
                f"'{node.attr}' is not defined on {base!r}"
            if not isinstance(exc, KilnError) and inspect.ismodule(base):
                message = f"{base.__name__} has no '{node.attr}'" + \
                    _suggestion(node.attr, [name for name in dir(base)
                                            if not name.startswith("_")])
            raise self.error(message) from None

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        return self.binary(node.op, self.expr(node.left),
                           self.expr(node.right))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.expr(node.operand)
        if _is_literal(operand) and not isinstance(node.op, ast.Not):
            operand = self.materialize(operand, None)
        if not isinstance(operand, Value):
            return {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                    ast.Not: lambda v: not v,
                    ast.Invert: lambda v: ~v}[type(node.op)](operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            if semantics.is_float8(operand.type.elem):
                return self.in_f32(operand.type.elem, lambda: self.op(
                    f"arith.negf {self.cast(operand, kl.float32).name} : "
                    f"{operand.type.with_elem('f32').ir()}",
                    operand.type.with_elem("f32")))
            if operand.type.is_float:
                return self.op(f"arith.negf {operand.name} : "
                               f"{operand.type.ir()}", operand.type)
            return self.binary(ast.Sub(), 0, operand)
        if isinstance(node.op, ast.Not):
            if operand.type.shape:
                raise self.error("'not' takes a scalar (as in Python); use "
                                 "~ for an elementwise not of a tile")
            if operand.type.is_pointer:
                raise self.error("'not' needs numbers or booleans")
            return self.compare_zero(operand, "eq")
        if isinstance(node.op, ast.Invert):
            if not operand.type.is_int:
                raise self.error("~ needs integers or booleans")
            ones = True if operand.type.elem == "i1" else \
                (1 << _bits(operand.type.elem)) - 1 if operand.type.is_unsigned \
                else -1
            return self.binary(ast.BitXor(), operand, ones)
        raise self.error("unsupported unary operator")

    def compare_zero(self, value: Value, predicate: str) -> Value:
        """`value == 0` (predicate "eq") or `value != 0` ("ne")."""
        zero = self.broadcast_to(
            self.materialize(0.0 if value.type.is_float else
                             (False if value.type.elem == "i1" else 0),
                             value.type.with_shape(())),
            value.type.shape)
        kind = ("arith.cmpf " + ("oeq" if predicate == "eq" else "une")
                if value.type.is_float else f"arith.cmpi {predicate}")
        return self.op(f"{kind}, {value.name}, {zero.name} : "
                       f"{value.type.ir()}", value.type.with_elem("i1"))

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        values = [self.expr(v) for v in node.values]
        op = ast.BitAnd() if isinstance(node.op, ast.And) else ast.BitOr()
        result = values[0]
        for value in values[1:]:
            result = self.binary(op, result, value)
        return result

    def expr_Compare(self, node: ast.Compare) -> Any:
        if len(node.ops) != 1:
            raise self.error("chained comparisons are not supported")
        return self.compare(node.ops[0], self.expr(node.left),
                            self.expr(node.comparators[0]))

    def compare(self, comparison: ast.cmpop, left: Any, right: Any) -> Any:
        """``left <comparison> right``: a boolean value, or a Python one
        for two compile-time operands."""
        op = type(comparison)
        # Assigned literals compare as tensors (in IR) where a float takes
        # part, whose comparison depends on its f32 rounding.
        folds = not any(_is_literal(v) for v in (left, right)) or not any(
            isinstance(v, float) for v in (left, right))
        if not isinstance(left, Value) and not isinstance(right, Value) \
                and folds:
            return {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
                    ast.Eq: lambda a, b: a == b,
                    ast.NotEq: lambda a, b: a != b,
                    ast.Is: lambda a, b: a is b,
                    ast.IsNot: lambda a, b: a is not b}[op](left, right)
        left, right = self.unify(left, right)
        if semantics.is_float8(left.type.elem):  # exactly, in f32
            left, right = (self.cast(v, kl.float32) for v in (left, right))
        if left.type.is_float:
            predicate = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt",
                         ast.GtE: "oge", ast.Eq: "oeq", ast.NotEq: "une"}
            dialect = "arith.cmpf"
        else:
            # Booleans compare unsigned (true > false), as in Python.
            sign = "u" if left.type.is_unsigned else "s"
            predicate = {ast.Lt: f"{sign}lt", ast.LtE: f"{sign}le",
                         ast.Gt: f"{sign}gt", ast.GtE: f"{sign}ge",
                         ast.Eq: "eq", ast.NotEq: "ne"}
            dialect = "arith.cmpi"
        if op not in predicate:
            raise self.error("unsupported comparison")
        return self.op(f"{dialect} {predicate[op]}, {left.name}, {right.name}"
                       f" : {left.type.ir()}", left.type.with_elem("i1"))

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        """``a if c else b``: on a compile-time ``c``, the taken side; on a
        run-time scalar ``c``, an scf.if yielding the side it takes (only
        that side runs, as in Triton), written as the if statement
        ``if c: t = a else: t = b``."""
        condition = self.expr(node.test)
        if not isinstance(condition, Value):
            return self.expr(node.body if condition else node.orelse)
        name = f"__ifexp{next(self.names)}"

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
                result = self.expand_dims(result, dim)
                dim += 1
            elif (isinstance(item, ast.Slice) and item.lower is None
                  and item.upper is None and item.step is None):
                dim += 1
            else:
                raise self.error("tiles are indexed with ':' and None only "
                                 "(x[:, None])", item)
        if dim != len(base.type.shape) + sum(
                isinstance(i, ast.Constant) for i in items):
            raise self.error(f"index has {dim} dimensions but the tile has "
                             f"{len(base.type.shape)}")
        return result

    def expr_Call(self, node: ast.Call) -> Any:
        callee = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        self.node = node
        if isinstance(callee, tuple) and callee[:1] == ("method_to",):
            return self.method_to(callee[1], *args, **kwargs)
        if isinstance(callee, tuple) and callee[:1] == ("method",):
            # x.sum(axis) is kl.sum(x, axis).
            callee, args = getattr(kl, callee[1]), [callee[2], *args]
        name = getattr(callee, "__kiln_builtin__", None)
        if name is not None:
            if name in _UNARY_MATH:
                method = functools.partial(self.unary_math, _UNARY_MATH[name])
            else:
                method = getattr(self, f"builtin_{name}")
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
            return self.libdevice(name, list(bound.args))
        if getattr(callee, "__kiln_jit__", False):
            return self.inline(callee, args, kwargs)
        if callee in (min, max) and not any(
                isinstance(a, Value) or _is_literal(a) for a in args):
            return callee(*args)
        if callee in (min, max) and len(args) > 1 and not kwargs:
            # min(a, BLOCK) on a run-time scalar, as in Triton's kernels.
            result = args[0]
            for arg in args[1:]:
                result = self.minmax(result, arg, callee.__name__)
            return result
        if callee is isinstance and len(args) == 2 and not kwargs:
            # A value (and an assigned literal) is Triton's tensor.
            if isinstance(args[0], Value) or _is_literal(args[0]):
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
        if inspect.isfunction(callee):
            raise self.error(f"cannot call {name} in a kernel: it is a plain "
                             f"Python function; decorate it with @kiln.jit "
                             f"(or @triton.jit) to call it from kernels")
        raise self.error(f"cannot call {name} in a kernel")

    def inline(self, callee, args: list, kwargs: dict) -> Any:
        """Generates a nested @kiln.jit call in place."""
        signature = inspect.signature(callee.fn)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise self.error(f"{callee.__name__}(): {exc}") from None
        bound.apply_defaults()
        if callee.fn is self.fn or callee.fn in self.callers:
            raise self.error(f"{callee.__name__}() calls itself; @kiln.jit "
                             "functions are inlined, so they cannot recurse")
        nested = CodeGenerator(callee.fn, {}, {}, self.debug)
        nested.callers = self.callers | {self.fn}
        nested.lines, nested.depth, nested.names = (self.lines, self.depth,
                                                    self.names)
        nested.globals_read = self.globals_read
        nested.scope = dict(bound.arguments)
        for name, parameter in signature.parameters.items():
            # A literal passed for a constexpr parameter is its number.
            if kl.is_constexpr_annotation(parameter.annotation,
                                          callee.fn.__globals__):
                nested.scope[name] = _plain(nested.scope[name])
        body = nested.tree.body[0].body
        nested.visit_body(body)
        return nested.scope.get("__return__")

    # -- Values and types ---------------------------------------------------

    def dtype_of(self, value: Any) -> kl.dtype:
        if value is kl.void:
            raise self.error("kl.void is the type of nothing, not an "
                             "element type")
        if isinstance(value, kl.dtype):
            return value
        raise self.error(f"expected a kl dtype, not {value!r}")

    def materialize(self, value: Any, like: Type | None,
                    lines: list[str] | None = None) -> Value:
        """``value`` as an IR value: Python numbers become constants of
        `like`'s element type (i32 / f32 / i1 by default). An assigned
        literal is a constant of its own type, converted to `like`'s as
        Triton converts a tensor."""
        if isinstance(value, Value):
            return value
        if isinstance(value, kl.constexpr):
            value = value.value
        if _is_literal(value):
            constant = self.materialize(_plain(value), Type((), value.elem),
                                        lines)
            if like is None or like.elem == value.elem or \
                    like.is_pointer or like.is_block_pointer:
                return constant
            saved = self.lines
            if lines is not None:
                self.lines = lines
                self.depth += 1
            result = self.cast(constant, kl.BY_IR[like.elem])
            if lines is not None:
                self.lines = saved
                self.depth -= 1
            return result
        if isinstance(value, bool):
            elem = "i1"
        elif isinstance(value, int):
            # An int meets a boolean as an int, as in Python.
            elem = (like.elem if like and like.is_int and like.elem != "i1"
                    else self.number_type(value))
            if like and like.is_float:
                elem = like.elem
        elif isinstance(value, float):
            elem = like.elem if like and like.is_float else "f32"
        else:
            raise self.error(f"{value!r} cannot be used as a value")
        if semantics.is_float8(elem):
            return self.float8_constant(value, elem, lines)
        if elem == "i1":
            text = "true" if value else "false"
        elif elem.startswith(("f", "bf")):
            text = _float_literal(value, elem)
        else:
            text = str(self.integer_bits(int(value), elem))
        saved = self.lines
        if lines is not None:
            self.lines = lines
            self.depth += 1
        # MLIR spells i1 constants `true`/`false`, without a type.
        literal = text if elem == "i1" else f"{text} : {elem}"
        result = self.op(f"arith.constant {literal}", Type((), elem))
        if lines is not None:
            self.lines = saved
            self.depth -= 1
        return result

    def float8_constant(self, value: float, elem: str,
                        lines: list[str] | None) -> Value:
        """An 8-bit float constant, written as its bits (rounded as the
        compiled conversion rounds, kiln/float8.py): no fold of a truncf
        on it can round otherwise."""
        code = float8.bits(value, kl.BY_IR[elem].numpy)
        saved = self.lines
        if lines is not None:
            self.lines = lines
            self.depth += 1
        byte = self.op(f"arith.constant {code - 256 * (code > 127)} : i8",
                       Type((), "i8"))
        result = self.op(f"arith.bitcast {byte.name} : i8 to {elem}",
                         Type((), elem))
        if lines is not None:
            self.lines = saved
            self.depth -= 1
        return result

    def number_type(self, value: int) -> str:
        """A Python integer's own type (semantics.python_number_type)."""
        try:
            return semantics.python_number_type(value)
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def integer_bits(self, value: int, elem: str) -> int:
        """``value`` as an integer constant of ``elem``
        (semantics.integer_constant), or an error at the line."""
        try:
            return semantics.integer_constant(value, elem)
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def method_to(self, value: Value, dtype=None, fp_downcast_rounding=None,
                  bitcast=False, **unknown) -> Value:
        """``x.to(dtype, fp_downcast_rounding=None, bitcast=False)``."""
        if unknown:
            raise self.error(f".to() got an unexpected keyword "
                             f"'{next(iter(unknown))}'")
        if fp_downcast_rounding not in (None, "rtne"):
            raise self.error(f".to(): fp_downcast_rounding "
                             f"{fp_downcast_rounding!r} is not supported "
                             "(floats are rounded to nearest even, 'rtne')")
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        if isinstance(dtype, kl.pointer_type) or value.type.is_pointer:
            return self.pointer_cast(value, dtype)
        target = self.dtype_of(dtype)
        if not bitcast:
            return self.cast(value, target)
        # The same bits, read as another type of the same width.
        if value.type.is_pointer or _bits(value.type.elem) != target.bits:
            raise self.error(f".to(bitcast=True) reinterprets bits, so "
                             f"{value.type.elem} and {target.ir} must have "
                             "the same width")
        if value.type.elem == target.ir:
            return value
        type_ = value.type.with_elem(target.ir)
        if value.type.is_int and type_.is_int:
            return Value(value.name, type_)  # signedness is the front end's
        return self.op(f"arith.bitcast {value.name} : {value.type.ir()} to "
                       f"{type_.ir()}", type_)

    def pointer_cast(self, value: Value, dtype: Any) -> Value:
        """``.to()`` from or to a pointer, as Triton allows: int64
        addresses to pointers, pointers to int64 addresses, and pointers
        to pointers of another element type."""
        if isinstance(dtype, kl.pointer_type):
            type_ = value.type.with_elem(pointer_type(dtype.element_ty.ir))
            if value.type.is_pointer:
                op = "tile.ptr_cast"
            elif value.type.elem == "i64":
                op = "tile.int_to_ptr"
            else:
                raise self.error(f"only int64 addresses convert to "
                                 f"pointers, not {value.type.elem}")
        elif dtype is kl.int64:
            type_, op = value.type.with_elem("i64"), "tile.ptr_to_int"
        else:
            raise self.error(f"a pointer converts to int64 or to another "
                             f"pointer type, not {dtype!r}")
        if type_ == value.type:
            return value
        return self.op(f"{op} {value.name} : {value.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def cast(self, value: Value, dtype: kl.dtype) -> Value:
        source, target = value.type.elem, dtype.ir
        if source == target:
            return value
        type_ = value.type.with_elem(target)
        if target == "i1":
            # A boolean is "not zero", not the lowest bit.
            return self.compare_zero(value, "ne")
        ir = f"{value.name} : {value.type.ir()} to {type_.ir()}"
        src_float, dst_float = value.type.is_float, dtype.is_float
        if src_float != dst_float and (semantics.is_float8(source) or
                                       semantics.is_float8(target)):
            # Integers and 8-bit floats convert through f32 (exact).
            return self.cast(self.cast(value, kl.float32), dtype)
        if src_float and dst_float and kl.BY_IR[source].bits == dtype.bits:
            # f16 <-> bf16: exactly to f32, then rounded once.
            return self.cast(self.cast(value, kl.float32), dtype)
        if src_float and dst_float:
            kind = ("arith.extf" if kl.BY_IR[source].bits < dtype.bits
                    else "arith.truncf")
        elif src_float:
            kind = "arith.fptoui" if type_.is_unsigned else "arith.fptosi"
        elif dst_float:
            kind = "arith.uitofp" if value.type.is_unsigned \
                else "arith.sitofp"
        elif kl.BY_IR[source].bits == dtype.bits:
            return Value(value.name, type_)  # the same bits, retyped
        elif kl.BY_IR[source].bits < dtype.bits:
            kind = "arith.extui" if value.type.is_unsigned else "arith.extsi"
        else:
            kind = "arith.trunci"
        return self.op(f"{kind} {ir}", type_)

    @staticmethod
    def operand_type(value: Any) -> str:
        """The element type of an operand: a value's, an assigned
        literal's, or a Python number's (or constexpr's)."""
        if isinstance(value, Value):
            return value.type.elem
        if isinstance(value, kl.constexpr):
            value = value.value
        if _is_literal(value):
            return value.elem
        return semantics.python_number_type(value)

    def broadcast_to(self, value: Value, shape: tuple[int, ...]) -> Value:
        if value.type.shape == shape:
            return value
        if not value.type.shape:
            type_ = value.type.with_shape(shape)
            return self.op(f"tile.splat {value.name} : {value.type.ir()} -> "
                           f"{type_.ir()}", type_)
        while len(value.type.shape) < len(shape):
            value = self.expand_dims(value, 0)
        for have, want in zip(value.type.shape, shape):
            if have != want and have != 1:
                raise self.error(f"cannot broadcast shape "
                                 f"{list(value.type.shape)} to {list(shape)}")
        type_ = value.type.with_shape(shape)
        return self.op(f"tile.broadcast {value.name} : {value.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def broadcast_shape(self, *shapes: tuple[int, ...]) -> tuple[int, ...]:
        rank = max(len(s) for s in shapes)
        result = []
        for dims in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
            sizes = {d for d in dims if d != 1}
            if len(sizes) > 1:
                raise self.error("shapes " + ", ".join(
                    str(list(s)) for s in shapes) + " do not broadcast")
            result.append(sizes.pop() if sizes else 1)
        return tuple(result)

    def unify(self, a: Any, b: Any, division: bool = False
              ) -> tuple[Value, Value]:
        """Both operands as values of one type, the language's computation
        type (semantics.computation_type; ``division`` for ``/`` and
        ``%``), shapes broadcast."""
        a_number, b_number = (not isinstance(v, Value) and not _is_literal(v)
                              for v in (a, b))
        if any(isinstance(v, Value) and (v.type.is_pointer or
                                         v.type.is_block_pointer)
               for v in (a, b)):
            # Pointers meet only pointers of their own type (kl.where).
            if a_number or b_number or a.type.elem != b.type.elem:
                raise self.error(
                    "pointers meet only pointers of the same type, not "
                    f"{getattr(a, 'type', a)!s} and {getattr(b, 'type', b)!s}")
            shape = self.broadcast_shape(a.type.shape, b.type.shape)
            return self.broadcast_to(a, shape), self.broadcast_to(b, shape)
        try:
            elem = semantics.computation_type(
                self.operand_type(a), a_number, self.operand_type(b),
                b_number, division)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        a, b = (self.materialize(v, Type((), elem)) for v in (a, b))
        a, b = self.cast(a, kl.BY_IR[elem]), self.cast(b, kl.BY_IR[elem])
        shape = self.broadcast_shape(a.type.shape, b.type.shape)
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    def binary(self, op: ast.operator, a: Any, b: Any) -> Any:
        if not isinstance(a, Value) and not isinstance(b, Value) and not (
                _is_literal(a) or _is_literal(b)):
            try:
                return _PYTHON_BINARY[type(op)](a, b)
            except (ArithmeticError, TypeError) as exc:
                raise self.error(f"{exc} (in arithmetic on compile-time "
                                 "values)") from None
        if isinstance(op, ast.Add) and (
                (isinstance(a, Value) and a.type.is_pointer)
                or (isinstance(b, Value) and b.type.is_pointer)):
            pointer, offset = (a, b) if isinstance(a, Value) and \
                a.type.is_pointer else (b, a)
            return self.addptr(pointer, offset)
        if isinstance(op, ast.Sub) and isinstance(a, Value) and \
                a.type.is_pointer:
            return self.addptr(a, self.binary(ast.Sub(), 0, b))
        if any(isinstance(v, Value) and (v.type.is_pointer or
                                         v.type.is_block_pointer)
               for v in (a, b)):
            raise self.error(f"operator {type(op).__name__} is not defined "
                             "on pointers (a pointer takes + and - of "
                             "integer offsets)")
        a, b = self.unify(a, b, division=isinstance(
            op, (ast.Div, ast.FloorDiv, ast.Mod)))
        if semantics.is_float8(a.type.elem):
            return self.in_f32(a.type.elem, lambda: self.binary(
                op, self.cast(a, kl.float32), self.cast(b, kl.float32)))
        if isinstance(op, ast.Div) and not a.type.is_float:
            a, b = self.cast(a, kl.float32), self.cast(b, kl.float32)
        float_ops = {ast.Add: "arith.addf", ast.Sub: "arith.subf",
                     ast.Mult: "arith.mulf", ast.Div: "arith.divf",
                     ast.Mod: "arith.remf"}
        int_ops = {ast.Add: "arith.addi", ast.Sub: "arith.subi",
                   ast.Mult: "arith.muli", ast.FloorDiv: "arith.divsi",
                   ast.Mod: "arith.remsi", ast.BitAnd: "arith.andi",
                   ast.BitOr: "arith.ori", ast.BitXor: "arith.xori",
                   ast.LShift: "arith.shli", ast.RShift: "arith.shrsi"}
        table = float_ops if a.type.is_float else int_ops
        if type(op) not in table:
            raise self.error(f"operator {type(op).__name__} is not defined "
                             f"on {a.type.elem}")
        if table is int_ops and isinstance(op, (ast.FloorDiv, ast.Mod)):
            return self.integer_division(op, a, b)
        if isinstance(op, ast.RShift) and a.type.is_unsigned:
            return self.op(f"arith.shrui {a.name}, {b.name} : "
                           f"{a.type.ir()}", a.type)
        if isinstance(op, ast.Div):
            return self.divide(a, b, "full")
        return self.op(f"{table[type(op)]} {a.name}, {b.name} : "
                       f"{a.type.ir()}", a.type)

    def divide(self, a: Value, b: Value, rounding: str) -> Value:
        """``a / b`` on floats of one type, rounded as Triton rounds float32
        division on the GPU: "full" (``/``, ``fdiv``: PTX div.full.f32, 2
        ulp), "approx" (``fdiv(approx=True)``: div.approx.f32) or "ieee"
        (``div_rn``: correctly rounded). The host rounds every one
        correctly, as Triton's interpreter does."""
        flags = _DIVISION_FLAGS[rounding] if a.type.elem == "f32" else ""
        return self.op(f"arith.divf {a.name}, {b.name}{flags} : "
                       f"{a.type.ir()}", a.type)

    def in_f32(self, elem: str, compute: Callable[[], Value]) -> Value:
        """``compute()``, an operation on 8-bit floats of ``elem`` done in
        f32 (exact), rounded back to ``elem`` once."""
        return self.cast(compute(), kl.BY_IR[elem])

    def integer_division(self, op: ast.operator, a: Value, b: Value
                         ) -> Value:
        """``a // b`` or ``a % b`` toward zero, as Triton computes them (C's
        rule, not Python's floor). x // 0 and x % 0 are 0, and the lowest
        value // -1 wraps to itself: each target makes the plain op total
        (tile-total-division) after the analyses that read it."""
        if a.type.elem == "i1":  # booleans divide as ints, as in Python
            a, b = self.cast(a, kl.int32), self.cast(b, kl.int32)
        kind = ("div" if isinstance(op, ast.FloorDiv) else "rem") + \
            ("ui" if a.type.is_unsigned else "si")
        return self.op(f"arith.{kind} {a.name}, {b.name} : {a.type.ir()}",
                       a.type)

    def addptr(self, pointer: Value, offset: Any) -> Value:
        if not isinstance(offset, Value):
            offset = self.materialize(offset, Type((), "i32"))
        if not offset.type.is_int:
            raise self.error("pointer offsets must be integers")
        if offset.type.is_unsigned and _bits(offset.type.elem) < 64:
            # tile.addptr reads its offset as signed: an unsigned one is
            # zero-extended first, as Triton does.
            offset = self.cast(offset, kl.int64)
        shape = self.broadcast_shape(pointer.type.shape, offset.type.shape)
        pointer = self.broadcast_to(pointer, shape)
        offset = self.broadcast_to(offset, shape)
        return self.op(f"tile.addptr {pointer.name}, {offset.name} : "
                       f"{pointer.type.ir()}, {offset.type.ir()}",
                       pointer.type)

    def expand_dims(self, value: Value, axis: int) -> Value:
        shape = list(value.type.shape)
        if not shape:
            raise self.error("cannot index a scalar")
        shape.insert(axis, 1)
        type_ = value.type.with_shape(tuple(shape))
        return self.op(f"tile.expand_dims {value.name} axis {axis} : "
                       f"{value.type.ir()} -> {type_.ir()}", type_)

    def trans(self, value: Value, dims: tuple = ()) -> Value:
        """``value`` with its dimensions permuted by ``dims`` (a 2-D
        transpose when empty)."""
        rank = len(value.type.shape)
        if not dims:
            if rank != 2:
                raise self.error(f"kl.trans of a tile of rank {rank} needs "
                                 "the permutation")
            dims = (1, 0)
        if sorted(dims) != list(range(rank)):
            raise self.error(f"{list(dims)} is not a permutation of the "
                             f"{rank} dimensions of a tile")
        type_ = value.type.with_shape(tuple(value.type.shape[d]
                                            for d in dims))
        return self.op(f"tile.trans {value.name} "
                       f"[{', '.join(map(str, dims))}] : {value.type.ir()} "
                       f"-> {type_.ir()}", type_)

    def constant_tile(self, shape: Any, value: Any, dtype: kl.dtype) -> Value:
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if any(not isinstance(d, int) or d <= 0 for d in shape):
            raise self.error(f"tile shapes are positive constants, not "
                             f"{shape}")
        if isinstance(value, Value):
            return self.broadcast_to(self.cast(value, dtype), shape)
        if not shape or semantics.is_float8(dtype.ir):
            # A scalar (tl.full((), v, dtype)), or an fp8 one's bits.
            return self.broadcast_to(self.cast(self.materialize(
                value, Type((), dtype.ir)), dtype), shape)
        text = (_float_literal(value, dtype.ir) if dtype.is_float else
                ("true" if value else "false") if dtype.ir == "i1" else
                str(self.integer_bits(int(value), dtype.ir)))
        type_ = Type(shape, dtype.ir)
        return self.op(f"arith.constant dense<{text}> : {type_.ir()}", type_)

    # -- Builtins -----------------------------------------------------------

    def builtin_program_id(self, axis):
        return self.grid_query("program_id", axis)

    def builtin_num_programs(self, axis):
        return self.grid_query("num_programs", axis)

    def grid_query(self, op: str, axis: Any) -> Value:
        if axis not in (0, 1, 2):
            raise self.error(f"axis must be 0, 1 or 2, not {axis!r}")
        return self.op(f"tile.{op} {'xyz'[axis]}", Type((), "i32"))

    def builtin_arange(self, start, end):
        if not all(isinstance(v, int) for v in (start, end)):
            raise self.error("kl.arange needs constant bounds (use "
                             "kl.constexpr parameters)")
        problem = semantics.arange_problem(start, end)
        if problem:
            raise self.error(problem)
        type_ = Type((end - start,), "i32")
        return self.op(f"tile.range {start} to {end} : {type_.ir()}", type_)

    def builtin_zeros(self, shape, dtype):
        return self.constant_tile(shape, 0, self.dtype_of(dtype))

    def builtin_full(self, shape, value, dtype):
        return self.constant_tile(shape, value, self.dtype_of(dtype))

    def check_pointer(self, pointer: Any, what: str) -> Value:
        if not isinstance(pointer, Value) or not pointer.type.is_pointer:
            raise self.error(f"{what} needs pointers, not "
                             f"{getattr(getattr(pointer, 'type', None), 'ir', lambda: pointer)()}")
        return pointer

    def mask_for(self, mask: Any, shape: tuple[int, ...]) -> Value | None:
        if mask is None:
            return None
        mask = self.materialize(mask, Type((), "i1"))
        if mask.type.elem != "i1":
            raise self.error(f"a mask must be boolean, not {mask.type.elem}")
        shape = self.broadcast_shape(shape, mask.type.shape)
        return self.broadcast_to(mask, shape)

    def constant_dims(self, value: Any, what: str) -> tuple[int, ...]:
        """``value``, a tuple of constant non-negative ints (a constexpr
        tuple included)."""
        if isinstance(value, kl.constexpr):
            value = value.value
        value = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        value = tuple(v.value if isinstance(v, kl.constexpr) else v
                      for v in value)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                   for v in value):
            raise self.error(f"{what} must be constant non-negative ints, "
                             f"not {value}")
        return value

    def scalars(self, values: Any, elem: str, what: str) -> list[Value]:
        """Each of ``values`` as a scalar ``elem`` integer."""
        values = tuple(values) if isinstance(values, (tuple, list)) \
            else (values,)
        result = []
        for value in values:
            value = self.materialize(value, Type((), elem))
            if value.type.shape or not value.type.is_int:
                raise self.error(f"{what} must be integer scalars, not "
                                 f"{value.type.ir()}")
            result.append(self.cast(value, kl.BY_IR[elem]))
        return result

    def check_block_pointer(self, value: Any, what: str) -> Value:
        if not isinstance(value, Value) or not value.type.is_block_pointer:
            raise self.error(f"{what} needs a block pointer "
                             "(kl.make_block_ptr)")
        return value

    def builtin_make_block_ptr(self, base, shape, strides, offsets,
                               block_shape, order):
        base = self.check_pointer(base, "kl.make_block_ptr")
        if base.type.shape:
            raise self.error("kl.make_block_ptr takes the tensor's base as "
                             f"one pointer, not a tile {base.type.ir()}")
        block = self.constant_dims(block_shape, "block_shape")
        order = self.constant_dims(order, "order")
        rank = len(block)
        shape = self.scalars(shape, "i64", "a block pointer's shape")
        strides = self.scalars(strides, "i64", "a block pointer's strides")
        offsets = self.scalars(offsets, "i32", "a block pointer's offsets")
        if not all(len(x) == rank for x in (shape, strides, offsets, order)):
            raise self.error(
                f"kl.make_block_ptr: shape, strides, offsets and order have "
                f"one entry per dimension of the {rank}-D block_shape")
        if sorted(order) != list(range(rank)) or 0 in block:
            raise self.error("kl.make_block_ptr: order must be a permutation "
                             "of the dimensions and the block's sizes "
                             "positive")
        type_ = Type((), f"!tile.block_ptr<{'x'.join(map(str, block))}x"
                         f"{base.type.pointee}>")
        names = [", ".join(v.name for v in x) for x in (shape, strides,
                                                        offsets)]
        return self.op(
            f"tile.make_block_ptr {base.name}, [{names[0]}], [{names[1]}], "
            f"[{names[2]}] {{order = array<i32: {', '.join(map(str, order))}>}}"
            f" : {base.type.elem} -> {type_.elem}", type_)

    def builtin_make_tensor_descriptor(self, base, shape, strides,
                                       block_shape, padding_option="zero"):
        base = self.check_pointer(base, "kl.make_tensor_descriptor")
        if base.type.shape:
            raise self.error("kl.make_tensor_descriptor takes the tensor's "
                             f"base as one pointer, not a tile "
                             f"{base.type.ir()}")
        block = self.constant_dims(block_shape, "block_shape")
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        strides = tuple(strides) if isinstance(strides, (tuple, list)) \
            else (strides,)
        if not len(shape) == len(strides) == len(block):
            raise self.error("kl.make_tensor_descriptor: shape, strides and "
                             "block_shape have one entry per dimension")
        last = strides[-1].value if isinstance(strides[-1], kl.constexpr) \
            else strides[-1]
        if not isinstance(last, Value) and last != 1:
            raise self.error(f"kl.make_tensor_descriptor: the last stride "
                             f"must be 1, not {last}")
        if padding_option not in ("zero", "nan"):
            raise self.error(f"padding_option is 'zero' or 'nan', not "
                             f"{padding_option!r}")
        return TensorDescriptor(base, shape, strides, block, padding_option)

    def descriptor_block(self, desc: Any, offsets: Any, what: str) -> Value:
        """The block pointer of ``desc``'s block at ``offsets``."""
        if not isinstance(desc, TensorDescriptor):
            raise self.error(f"{what} takes a tensor descriptor")
        rank = len(desc.block_shape)
        return self.builtin_make_block_ptr(
            desc.base, desc.shape, desc.strides, offsets, desc.block_shape,
            tuple(range(rank - 1, -1, -1)))

    def builtin_load_tensor_descriptor(self, desc, offsets):
        block = self.descriptor_block(desc, offsets,
                                      "kl.load_tensor_descriptor")
        return self.builtin_load(
            block, boundary_check=tuple(range(len(desc.block_shape))),
            padding_option=desc.padding_option)

    def builtin_store_tensor_descriptor(self, desc, offsets, value):
        block = self.descriptor_block(desc, offsets,
                                      "kl.store_tensor_descriptor")
        return self.builtin_store(
            block, value, boundary_check=tuple(range(len(desc.block_shape))))

    def builtin_advance(self, block_ptr, offsets):
        block_ptr = self.check_block_pointer(block_ptr, "kl.advance")
        offsets = self.scalars(offsets, "i32", "kl.advance's offsets")
        if len(offsets) != len(block_ptr.type.block[0]):
            raise self.error("kl.advance takes one offset per dimension of "
                             "the block")
        return self.op(f"tile.advance {block_ptr.name}, "
                       f"[{', '.join(v.name for v in offsets)}] : "
                       f"{block_ptr.type.elem}", block_ptr.type)

    def boundary_check(self, block_ptr: Value, dims: Any) -> str:
        dims = self.constant_dims(dims, "boundary_check")
        rank = len(block_ptr.type.block[0])
        if any(d >= rank for d in dims) or len(set(dims)) != len(dims):
            raise self.error(f"boundary_check names distinct dimensions of "
                             f"the {rank}-D block, not {dims}")
        return (f" boundary_check = [{', '.join(map(str, dims))}]"
                if dims else "")

    def check_hints(self, op: str, cache_modifier: Any, eviction_policy: Any,
                    volatile: Any = False) -> None:
        problem = kl.memory_hint_problem(op, cache_modifier, eviction_policy,
                                         volatile)
        if problem:
            raise self.error(problem)

    def builtin_load(self, pointer, mask=None, other=None, boundary_check=(),
                     padding_option="", *, cache_modifier="",
                     eviction_policy="", volatile=False):
        self.check_hints("load", cache_modifier, eviction_policy, volatile)
        if isinstance(pointer, Value) and pointer.type.is_block_pointer:
            if mask is not None or other is not None:
                raise self.error("kl.load of a block pointer takes "
                                 "boundary_check and padding_option, not "
                                 "mask and other")
            if padding_option not in ("", "zero", "nan"):
                raise self.error(f"padding_option is 'zero' or 'nan', not "
                                 f"{padding_option!r}")
            shape, elem = pointer.type.block
            if padding_option == "nan" and elem not in ("f16", "bf16", "f32",
                                                        "f64"):
                raise self.error("padding_option='nan' needs floats")
            result = Type(shape, elem)
            padding = " padding = nan" if padding_option == "nan" else ""
            return self.op(
                f"tile.block_load {pointer.name}"
                f"{self.boundary_check(pointer, boundary_check)}{padding} : "
                f"{pointer.type.elem} -> {result.ir()}", result)
        if boundary_check or padding_option:
            raise self.error("boundary_check and padding_option apply to "
                             "block pointers (kl.make_block_ptr)")
        pointer = self.check_pointer(pointer, "kl.load")
        mask = self.mask_for(mask, pointer.type.shape)
        if mask is not None and mask.type.shape != pointer.type.shape:
            pointer = self.broadcast_to(pointer, mask.type.shape)
        result = Type(pointer.type.shape, pointer.type.pointee)
        operands = pointer.name
        if mask is not None:
            operands += f", {mask.name}"
        if other is not None:
            if mask is None:
                raise self.error("kl.load: other needs a mask")
            other = self.materialize(other, result.with_shape(()))
            other = self.broadcast_to(self.cast(other, kl.BY_IR[result.elem]),
                                      result.shape)
            operands += f", other {other.name}"
        return self.op(f"tile.load {operands} : {pointer.type.ir()} -> "
                       f"{result.ir()}", result)

    def builtin_store(self, pointer, value, mask=None, boundary_check=(), *,
                      cache_modifier="", eviction_policy=""):
        self.check_hints("store", cache_modifier, eviction_policy)
        if isinstance(pointer, Value) and pointer.type.is_block_pointer:
            if mask is not None:
                raise self.error("kl.store to a block pointer takes "
                                 "boundary_check, not mask")
            shape, elem = pointer.type.block
            value = self.materialize(value, Type((), elem))
            if self.broadcast_shape(shape, value.type.shape) != shape:
                raise self.error(f"kl.store: a {value.type.ir()} does not "
                                 f"fit the block {shape}")
            value = self.broadcast_to(self.cast(value, kl.BY_IR[elem]), shape)
            self.emit(f"tile.block_store {pointer.name}, {value.name}"
                      f"{self.boundary_check(pointer, boundary_check)} : "
                      f"{pointer.type.elem}, {value.type.ir()} {self.loc()}")
            return
        if boundary_check:
            raise self.error("boundary_check applies to block pointers "
                             "(kl.make_block_ptr)")
        pointer = self.check_pointer(pointer, "kl.store")
        value = self.materialize(value, Type((), pointer.type.pointee))
        shape = self.broadcast_shape(pointer.type.shape, value.type.shape)
        mask = self.mask_for(mask, shape)
        if mask is not None:
            shape = mask.type.shape
        pointer = self.broadcast_to(pointer, shape)
        value = self.broadcast_to(
            self.cast(value, kl.BY_IR[pointer.type.pointee]), shape)
        operands = f"{pointer.name}, {value.name}"
        if mask is not None:
            operands += f", {mask.name}"
        self.emit(f"tile.store {operands} : {pointer.type.ir()}, "
                  f"{value.type.ir()} {self.loc()}")

    def atomic(self, kind: str, pointer, value, mask, sem, scope):
        problem = kl.atomic_order_problem(sem, scope)
        if problem:
            raise self.error(problem)
        pointer = self.check_pointer(pointer, f"kl.atomic_{kind}")
        if semantics.is_float8(pointer.type.pointee):
            raise self.error(f"kl.atomic_{kind} takes no 8-bit floats")
        if kind in ("and", "or", "xor") and not Type(
                (), pointer.type.pointee).is_int:
            raise self.error(f"kl.atomic_{kind} needs integers, not "
                             f"{pointer.type.pointee}")
        value = self.materialize(value, Type((), pointer.type.pointee))
        shape = self.broadcast_shape(pointer.type.shape, value.type.shape)
        mask = self.mask_for(mask, shape)
        if mask is not None:
            shape = mask.type.shape
        pointer = self.broadcast_to(pointer, shape)
        value = self.broadcast_to(
            self.cast(value, kl.BY_IR[pointer.type.pointee]), shape)
        operands = f"{pointer.name}, {value.name}"
        if mask is not None:
            operands += f", {mask.name}"
        sem = sem or kl.MEMORY_SEMANTICS[0]
        scope = scope or kl.MEMORY_SCOPES[0]
        if kind in ("max", "min") and value.type.is_unsigned:
            kind = f"u{kind}"
        return self.op(f"tile.atomic_rmw {kind} {sem} {scope} {operands} : "
                       f"{pointer.type.ir()}, {value.type.ir()}", value.type)

    def one_way_sem(self, name: str, sem: Any) -> str:
        """``sem`` of ``kl.<name>``, checked, or its default."""
        problem = kl.one_way_order_problem(name, sem)
        if problem:
            raise self.error(problem)
        return sem or kl.ONE_WAY_SEMANTICS[name][0]

    def builtin_atomic_load(self, pointer, mask=None, sem=None, scope=None):
        sem = self.one_way_sem("atomic_load", sem)
        pointer = self.check_pointer(pointer, "kl.atomic_load")
        elem = pointer.type.pointee
        if elem not in ("i32", "i64", "f32", "f64"):
            raise self.error(f"kl.atomic_load reads elements of 32 or 64 "
                             f"bits, not {elem}")
        # An atomic or of 0 on the bits: the value, read atomically.
        bits = kl.BY_IR[f"i{elem[1:]}"]
        words = self.pointer_cast(pointer, kl.pointer_type(bits))
        old = self.atomic("or", words, 0, mask, sem, scope)
        if old.type.elem == elem:
            return old
        type_ = old.type.with_elem(elem)
        return self.op(f"arith.bitcast {old.name} : {old.type.ir()} to "
                       f"{type_.ir()}", type_)

    def builtin_atomic_store(self, pointer, val, mask=None, sem=None,
                             scope=None):
        self.atomic("xchg", pointer, val, mask,
                    self.one_way_sem("atomic_store", sem), scope)

    def builtin_atomic_poll(self, pointer, expected_value, sem=None,
                            scope=None, timeout_ns=None):
        if timeout_ns is not None:
            raise self.error("kl.atomic_poll: timeout_ns is not supported "
                             "by Kiln yet")
        pointer = self.check_pointer(pointer, "kl.atomic_poll")
        if pointer.type.pointee not in ("i32", "i64"):
            raise self.error(f"kl.atomic_poll waits on integers of 32 or 64 "
                             f"bits, not {pointer.type.pointee}")
        # scf.while: the before region reads and compares, the do region
        # is empty.
        saved = self.lines
        self.lines = []
        self.depth += 1
        value = self.builtin_atomic_load(pointer, sem=sem, scope=scope)
        differs = self.compare(ast.NotEq(), value, expected_value)
        if differs.type.shape:
            flat = self.builtin_reshape(differs, math.prod(
                differs.type.shape))
            differs = self.builtin_reduce_or(flat, 0)
        test_lines = self.lines
        self.depth -= 1
        self.lines = saved
        self.emit("scf.while : () -> () {")
        self.lines.extend(test_lines)
        self.lines.append("  " * (self.depth + 1) +
                          f"scf.condition({differs.name})")
        self.emit("} do {")
        self.emit_yield([], depth=self.depth + 1)
        self.emit(f"}} {self.loc()}")
        return self.constant_tile(value.type.shape, True, kl.int1)

    def builtin_atomic_cas(self, pointer, cmp, val, sem=None, scope=None):
        problem = kl.atomic_order_problem(sem, scope)
        if problem:
            raise self.error(problem)
        pointer = self.check_pointer(pointer, "kl.atomic_cas")
        elem = pointer.type.pointee
        if _bits(elem) not in (16, 32, 64):
            raise self.error(f"kl.atomic_cas compares and swaps elements of "
                             f"16, 32 or 64 bits, not {elem}")
        cmp, val = (self.cast(self.materialize(v, Type((), elem)),
                              kl.BY_IR[elem]) for v in (cmp, val))
        shape = self.broadcast_shape(pointer.type.shape, cmp.type.shape,
                                     val.type.shape)
        pointer, cmp, val = (self.broadcast_to(v, shape)
                             for v in (pointer, cmp, val))
        return self.op(f"tile.atomic_cas {sem or kl.MEMORY_SEMANTICS[0]} "
                       f"{scope or kl.MEMORY_SCOPES[0]} {pointer.name}, "
                       f"{cmp.name}, {val.name} : {pointer.type.ir()}, "
                       f"{val.type.ir()}", val.type)

    def builtin_atomic_add(self, pointer, value, mask=None, sem=None,
                           scope=None):
        return self.atomic("add", pointer, value, mask, sem, scope)

    def builtin_atomic_max(self, pointer, value, mask=None, sem=None,
                           scope=None):
        return self.atomic("max", pointer, value, mask, sem, scope)

    def builtin_atomic_min(self, pointer, value, mask=None, sem=None,
                           scope=None):
        return self.atomic("min", pointer, value, mask, sem, scope)

    def builtin_atomic_xchg(self, pointer, value, mask=None, sem=None,
                            scope=None):
        return self.atomic("xchg", pointer, value, mask, sem, scope)

    def builtin_atomic_and(self, pointer, value, mask=None, sem=None,
                           scope=None):
        return self.atomic("and", pointer, value, mask, sem, scope)

    def builtin_atomic_or(self, pointer, value, mask=None, sem=None,
                          scope=None):
        return self.atomic("or", pointer, value, mask, sem, scope)

    def builtin_atomic_xor(self, pointer, value, mask=None, sem=None,
                           scope=None):
        return self.atomic("xor", pointer, value, mask, sem, scope)

    def builtin_cast(self, x, dtype, fp_downcast_rounding=None,
                     bitcast=False):
        return self.method_to(self.materialize(x, None), dtype,
                              fp_downcast_rounding, bitcast)

    def builtin_where(self, condition, x, y):
        condition = self.materialize(condition, Type((), "i1"))
        if condition.type.elem != "i1":
            raise self.error("kl.where needs a boolean condition")
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        x, y = self.unify(x, y)
        shape = self.broadcast_shape(condition.type.shape, x.type.shape)
        condition = self.broadcast_to(condition, shape)
        x, y = self.broadcast_to(x, shape), self.broadcast_to(y, shape)
        types = (f"{condition.type.ir()}, {x.type.ir()}" if shape
                 else x.type.ir())
        return self.op(f"arith.select {condition.name}, {x.name}, {y.name} : "
                       f"{types}", x.type)

    def minmax(self, x, y, kind: str,
               propagate_nan: Any = semantics.PropagateNan.NONE) -> Value:
        if isinstance(propagate_nan, kl.constexpr):
            propagate_nan = propagate_nan.value
        if not isinstance(propagate_nan, semantics.PropagateNan):
            raise self.error(f"propagate_nan is kl.PropagateNan.NONE or "
                             f"kl.PropagateNan.ALL, not {propagate_nan!r}")
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        x, y = self.unify(x, y)
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.minmax(
                self.cast(x, kl.float32), self.cast(y, kl.float32), kind,
                propagate_nan))
        op = semantics.extremum_op(kind, x.type.elem, propagate_nan)
        return self.op(f"arith.{op} {x.name}, {y.name} : {x.type.ir()}",
                       x.type)

    def builtin_minimum(self, x, y, propagate_nan=semantics.PropagateNan.NONE):
        return self.minmax(x, y, "min", propagate_nan)

    def builtin_maximum(self, x, y, propagate_nan=semantics.PropagateNan.NONE):
        return self.minmax(x, y, "max", propagate_nan)

    def unary_math(self, op: str, x, exact: bool = False) -> Value:
        """``op`` on a float tile (integers in f32); float32 ``exp`` and
        ``sqrt`` approximate on the GPU as Triton's do, unless ``exact``
        (``sqrt_rn``)."""
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.unary_math(
                op, self.cast(x, kl.float32), exact))
        if not x.type.is_float:
            x = self.cast(x, kl.float32)
        # Triton's float32 exp and sqrt approximate on the GPU.
        flags = " fastmath<afn>" if op in _APPROXIMATE_MATH and \
            x.type.elem == "f32" and not exact else ""
        return self.op(f"{op} {x.name}{flags} : {x.type.ir()}", x.type)

    def libdevice(self, name: str, args: list) -> Value:
        """``libdevice.<name>(*args)`` (kiln.extra.libdevice): the operands
        typed as Triton's ``extern_elementwise`` types them (a Python
        number is a scalar tensor), broadcast to one shape, and one of the
        function's overloads exactly."""
        values = [self.materialize(self.assigned(a), None) for a in args]
        if any(v.type.is_pointer or v.type.is_block_pointer for v in values):
            raise self.error(f"libdevice.{name} takes numbers, not pointers")
        shape = self.broadcast_shape(*(v.type.shape for v in values))
        values = [self.broadcast_to(v, shape) for v in values]
        try:
            result = libdevice.result_type(name, tuple(v.type.elem
                                                       for v in values))
        except KilnError as exc:
            raise self.error(str(exc)) from None
        kind, _, modifier = libdevice.FUNCTIONS[name].kind.partition(" ")
        x, type_ = values[0], values[0].type
        names = ", ".join(v.name for v in values)

        def constant(value: Any, elem: str) -> Value:
            return self.constant_tile(shape, value, kl.BY_IR[elem])

        def predicate(flag: Value) -> Value:
            return self.op(f"arith.extui {flag.name} : {flag.type.ir()} to "
                           f"{flag.type.with_elem('i32').ir()}",
                           flag.type.with_elem("i32"))

        if kind.startswith(("math.", "arith.")):
            fastmath = " fastmath<afn>" if modifier == "afn" else ""
            return self.op(f"{kind} {names}{fastmath} : {type_.ir()}", type_)
        if kind == "pow" and values[1].type.elem == "i32":
            return self.op(f"math.fpowi {names} : {type_.ir()}, "
                           f"{values[1].type.ir()}", type_)
        if kind == "pow":
            return self.op(f"math.powf {names} : {type_.ir()}", type_)
        if kind == "exp10":
            ten = constant(10.0, type_.elem)
            fastmath = " fastmath<afn>" if modifier == "afn" else ""
            return self.op(f"math.powf {ten.name}, {x.name}{fastmath} : "
                           f"{type_.ir()}", type_)
        if kind == "abs":
            op = "math.absf" if type_.is_float else "math.absi"
            return self.op(f"{op} {x.name} : {type_.ir()}", type_)
        if kind == "reciprocal":
            one = constant(1.0, type_.elem)
            return self.op(f"arith.divf {one.name}, {x.name} : {type_.ir()}",
                           type_)
        if kind == "saturate":  # a NaN gives 0, as maxnum lets it
            low = self.op(f"arith.maxnumf {x.name}, "
                          f"{constant(0.0, type_.elem).name} : {type_.ir()}",
                          type_)
            return self.op(f"arith.minnumf {low.name}, "
                           f"{constant(1.0, type_.elem).name} : "
                           f"{type_.ir()}", type_)
        if kind == "predicate":
            # As comparisons: NaN is unordered with itself; |x| is inf, or
            # ordered and not inf.
            flags = type_.with_elem("i1")
            if modifier == "isnan":
                return predicate(self.op(f"arith.cmpf uno, {x.name}, "
                                         f"{x.name} : {type_.ir()}", flags))
            magnitude = self.op(f"math.absf {x.name} : {type_.ir()}", type_)
            infinity = constant(math.inf, type_.elem)
            compare = "oeq" if modifier == "isinf" else "one"
            return predicate(self.op(
                f"arith.cmpf {compare}, {magnitude.name}, {infinity.name} : "
                f"{type_.ir()}", flags))
        if kind == "signbit":
            bits = "i32" if type_.elem == "f32" else "i64"
            word = self.op(
                f"arith.bitcast {x.name} : {type_.ir()} to "
                f"{type_.with_elem(bits).ir()}", type_.with_elem(bits))
            return predicate(self.op(
                f"arith.cmpi slt, {word.name}, {constant(0, bits).name} : "
                f"{word.type.ir()}", type_.with_elem("i1")))
        if kind == "count":
            count = self.op(f"{modifier} {x.name} : {type_.ir()}", type_)
            return self.cast(count, kl.int32)
        if kind == "mulhi":
            return self.high_product(
                "arith.mului_extended" if type_.is_unsigned
                else "arith.mulsi_extended", *values)
        if kind == "to_int":
            return self.rounded_to_int(x, result, modifier)
        if kind == "int_to_float":
            return self.cast(x, kl.BY_IR[result])
        cast = {"truncf": "arith.truncf", "bitcast": "arith.bitcast"}[kind]
        target = type_.with_elem(result)
        return self.op(f"{cast} {x.name} : {type_.ir()} to {target.ir()}",
                       target)

    def rounded_to_int(self, x: Value, elem: str, mode: str) -> Value:
        """``x`` rounded (``mode``: rn to nearest even, rz toward zero, rd
        down, ru up, away: half away from zero; ``unsigned`` after it for
        an unsigned result, whose bits ``elem`` holds), saturated to the
        result's range and with NaN as 0, as PTX's cvt converts."""
        rounding, _, unsigned = mode.partition(" ")
        op = {"rn": "math.roundeven", "rd": "math.floor", "ru": "math.ceil",
              "away": "math.round", "rz": None}[rounding]
        if op is not None:
            x = self.op(f"{op} {x.name} : {x.type.ir()}", x.type)
        bits = _bits(elem)
        low, high = (0, 2**bits - 1) if unsigned else (-2**(bits - 1),
                                                         2**(bits - 1) - 1)
        shape, target = x.type.shape, x.type.with_elem(elem)
        convert = "arith.fptoui" if unsigned else "arith.fptosi"
        value = self.op(f"{convert} {x.name} : {x.type.ir()} to "
                        f"{target.ir()}", target)
        flags = x.type.with_elem("i1")

        def float_constant(v: float) -> Value:
            return self.constant_tile(shape, v, kl.BY_IR[x.type.elem])

        def int_constant(v: int) -> Value:
            # The unsigned bound as the bits of the signed type.
            return self.constant_tile(shape, v - (2**bits if v >= 2**(
                bits - 1) else 0), kl.BY_IR[elem])

        for predicate, bound, replacement in (
                ("oge", float(high + 1), high), ("olt", float(low), low),
                ("uno", None, 0)):
            other = x if bound is None else float_constant(bound)
            flag = self.op(f"arith.cmpf {predicate}, {x.name}, {other.name} "
                           f": {x.type.ir()}", flags)
            value = self.op(f"arith.select {flag.name}, "
                            f"{int_constant(replacement).name}, "
                            f"{value.name} : {flags.ir()}, {target.ir()}"
                            if shape else
                            f"arith.select {flag.name}, "
                            f"{int_constant(replacement).name}, "
                            f"{value.name} : {target.ir()}", target)
        return value

    def builtin_sigmoid(self, x):
        x = self.materialize(x, None)
        if not x.type.is_float:
            x = self.cast(x, kl.float32)
        negative = self.op(f"arith.negf {x.name} : {x.type.ir()}", x.type)
        e = self.unary_math("math.exp", negative)
        return self.binary(ast.Div(), 1.0, self.binary(ast.Add(), 1.0, e))

    def builtin_abs(self, x):
        x = self.materialize(x, None)
        if x.type.is_unsigned:
            return x
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.builtin_abs(
                self.cast(x, kl.float32)))
        op = "math.absf" if x.type.is_float else "math.absi"
        return self.op(f"{op} {x.name} : {x.type.ir()}", x.type)

    def builtin_fma(self, x, y, z):
        x, y = self.unify(x, y)
        x, z = self.unify(x, z)
        x, y = self.unify(x, y)
        if not x.type.is_float:
            raise self.error("kl.fma needs floats")
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.builtin_fma(
                *(self.cast(v, kl.float32) for v in (x, y, z))))
        return self.op(f"math.fma {x.name}, {y.name}, {z.name} : "
                       f"{x.type.ir()}", x.type)

    def builtin_cdiv(self, x, y):
        if not isinstance(x, Value) and not isinstance(y, Value):
            # As the kernel computes it: (x + y - 1) // y toward zero.
            if y == 0:
                raise self.error("kl.cdiv of compile-time values divides by "
                                 "zero")
            quotient = abs(x + y - 1) // abs(y)
            return quotient if (x + y - 1 >= 0) == (y > 0) else -quotient
        return self.binary(ast.FloorDiv(), self.binary(
            ast.Sub(), self.binary(ast.Add(), x, y), 1), y)

    def normalized_axis(self, axis: Any, rank: int) -> int:
        """``axis`` of a tile of ``rank`` dimensions, counted from the end
        where negative."""
        if isinstance(axis, kl.constexpr):
            axis = axis.value
        if not isinstance(axis, int) or isinstance(axis, bool) or \
                not -rank <= axis < rank:
            raise self.error(f"axis {axis!r} is out of range for a tile of "
                             f"{rank} dimensions")
        return axis % rank

    def reduced(self, x: Any, axis: Any, keep_dims: bool,
                compute: Callable[[Value, int], Value]) -> Value:
        """``compute(x, axis)`` along ``axis`` (of the flattened tile when
        None), the reduced axis kept with size 1 where ``keep_dims``."""
        x = self.materialize(x, None)
        if not x.type.shape:
            raise self.error("reductions need a tile")
        rank = len(x.type.shape)
        if axis is None:
            if rank > 1:
                flat = x.type.with_shape((math.prod(x.type.shape),))
                x = self.op(f"tile.reshape {x.name} : {x.type.ir()} -> "
                            f"{flat.ir()}", flat)
            result = compute(x, 0)
            return self.broadcast_to(result, (1,) * rank) if keep_dims \
                else result
        axis = self.normalized_axis(axis, rank)
        result = compute(x, axis)
        if not keep_dims:
            return result
        if not result.type.shape:
            return self.broadcast_to(result, (1,))
        return self.expand_dims(result, axis)

    def reduce(self, x: Value, axis: int, combine: Callable[[str, str, str],
                                                            list[str]]):
        """`x` reduced along `axis` with a region built by
        `combine(a, b, type)` (lines computing %r)."""
        shape = x.type.shape[:axis] + x.type.shape[axis + 1:]
        result = Type(shape, x.type.elem)
        name = self.fresh()
        elem = x.type.elem
        self.emit(f"{name} = tile.reduce {x.name} axis {axis} : "
                  f"{x.type.ir()} -> {result.ir()} {{")
        self.emit(f"^bb0(%a: {elem}, %b: {elem}):")
        for line in combine("%a", "%b", elem):
            self.emit(f"  {line}")
        self.emit(f"  tile.yield %r : {elem}")
        self.emit(f"}} {self.loc()}")
        return Value(name, result)

    def widened(self, x: Any) -> Value:
        """`x` in the type sums and prefix sums accumulate in by default
        (semantics.sum_type: narrow integers in the 32-bit type of their
        signedness; a sum of booleans counts them, in uint32)."""
        x = self.materialize(x, None)
        return self.cast(x, kl.BY_IR[semantics.sum_type(x.type.elem)])

    def half_in_f32(self, x: Value, compute: Callable[[Value], Value]
                    ) -> Value:
        """``compute(x)``, for f16, bf16 and 8-bit floats in f32 and
        rounded back once (a sum's running value would round at every
        step)."""
        if x.type.elem not in ("f16", "bf16", *semantics.FLOAT8):
            return compute(x)
        return self.cast(compute(self.cast(x, kl.float32)),
                         kl.BY_IR[x.type.elem])

    def summed_input(self, x: Any, dtype: Any) -> Value:
        """``x`` in the type a sum or product runs in: ``dtype``, else
        booleans and narrow integers widened to i32."""
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        if dtype is None:
            return self.widened(x)
        if not isinstance(dtype, kl.dtype):
            raise self.error(f"dtype is a kl type, not {dtype!r}")
        return self.cast(self.materialize(x, None), dtype)

    def arith_reduction(self, x: Value, axis: Any, keep_dims: bool,
                        op: str) -> Value:
        """``x`` reduced along ``axis`` by ``op`` ("add", "mul", "xor",
        "or"; f16 and bf16 in f32, rounded once)."""
        def combine(a: str, b: str, t: str) -> list[str]:
            suffix = ("f" if t.startswith(("f", "bf")) else "i") \
                if op in ("add", "mul") else "i"
            return [f"%r = arith.{op}{suffix} {a}, {b} : {t}"]
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.half_in_f32(x, lambda x: self.reduce(
                                x, axis, combine)))

    def builtin_sum(self, x, axis=None, keep_dims=False, dtype=None):
        return self.arith_reduction(self.summed_input(x, dtype), axis,
                                    keep_dims, "add")

    def integer_reduction(self, name: str, x, axis, keep_dims, op: str
                          ) -> Value:
        x = self.materialize(x, None)
        if not x.type.is_int:
            raise self.error(f"kl.{name} needs integers, not {x.type.elem}")
        return self.arith_reduction(x, axis, keep_dims, op)

    def builtin_gather(self, src, index, axis):
        src, index = self.materialize(src, None), self.materialize(index, None)
        if not src.type.shape or not index.type.is_int or \
                len(index.type.shape) != len(src.type.shape):
            raise self.error(f"kl.gather takes a tile and an integer index "
                             f"tile of its rank, not {src.type.ir()} and "
                             f"{index.type.ir()}")
        axis = self.normalized_axis(axis, len(src.type.shape))
        for d, (have, want) in enumerate(zip(index.type.shape,
                                             src.type.shape)):
            if d != axis and have != want:
                raise self.error(f"kl.gather: the index's dimension {d} has "
                                 f"size {have} but the source's has {want}")
        type_ = index.type.with_elem(src.type.elem)
        return self.op(f"tile.gather {src.name}[{index.name}] axis {axis} : "
                       f"{src.type.ir()}, {index.type.ir()} -> {type_.ir()}",
                       type_)

    def builtin_histogram(self, input, num_bins, mask=None):
        x = self.materialize(input, None)
        if len(x.type.shape) != 1 or not x.type.is_int:
            raise self.error(f"kl.histogram takes a 1-D tile of integers, "
                             f"not {x.type.ir()}")
        if isinstance(num_bins, kl.constexpr):
            num_bins = num_bins.value
        if not isinstance(num_bins, int) or isinstance(num_bins, bool) or \
                num_bins < 1:
            raise self.error("kl.histogram needs a constant positive number "
                             f"of bins, not {num_bins!r}")
        # Element i, bin j: value i falls in bin j (a value outside every
        # bin in none).
        bins = self.expand_dims(self.builtin_arange(0, num_bins), 0)
        hits = self.compare(ast.Eq(), self.expand_dims(x, 1), bins)
        if mask is not None:
            mask = self.broadcast_to(self.materialize(mask, Type((), "i1")),
                                     x.type.shape)
            hits = self.binary(ast.BitAnd(), hits, self.expand_dims(mask, 1))
        return self.builtin_sum(self.cast(hits, kl.int32), 0)

    def logical(self, name: str, op: ast.operator, input, other) -> Value:
        a, b = (self.materialize(self.assigned(v), None)
                for v in (input, other))
        if a.type.elem != "i1" or b.type.elem != "i1":
            raise self.error(f"kl.{name} takes booleans, not {a.type.elem} "
                             f"and {b.type.elem}")
        return self.binary(op, a, b)

    def builtin_logical_and(self, input, other):
        return self.logical("logical_and", ast.BitAnd(), input, other)

    def builtin_logical_or(self, input, other):
        return self.logical("logical_or", ast.BitOr(), input, other)

    def builtin_item(self, input):
        x = self.materialize(input, None)
        if math.prod(x.type.shape) != 1 or x.type.is_pointer:
            raise self.error(f"x.item() takes a tile of one number, not "
                             f"{x.type.ir()}")
        if not x.type.shape:
            return x
        if len(x.type.shape) != 1:
            x = self.builtin_reshape(x, 1)
        # One element: the combining region never runs.
        op = "arith.addf" if x.type.is_float else "arith.ori"
        return self.reduce(x, 0, lambda a, b, t: [f"%r = {op} {a}, {b} : {t}"])

    def builtin_expect_zero(self, x, mask):
        x = self.materialize(x, None)
        self.builtin_device_assert(
            self.compare(ast.Eq(), x, 0), "kl.expect_zero: a value "
            "expected to be zero is not", mask)
        return x

    def builtin_xor_sum(self, x, axis=None, keep_dims=False):
        return self.integer_reduction("xor_sum", x, axis, keep_dims, "xor")

    def builtin_reduce_or(self, x, axis, keep_dims=False):
        return self.integer_reduction("reduce_or", x, axis, keep_dims, "or")

    def with_indices(self, name: str, x, axis, tie_break_left,
                     keep_dims) -> tuple[Value, Value]:
        """``kl.max(x, axis, return_indices=True)``: the extremum, in
        ``x``'s type, and the index of its first occurrence (the value at
        that index, a NaN where the index is a NaN's)."""
        if not tie_break_left:
            raise self.error(f"kl.{name}: return_indices_tie_break_left="
                             "False is not supported by Kiln yet")
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem):  # compared in f32, exactly
            value, index = self.with_indices(name, self.cast(
                x, kl.float32), axis, tie_break_left, keep_dims)
            return self.cast(value, kl.BY_IR[x.type.elem]), index
        return tuple(self.reduced(x, axis, keep_dims, lambda x, axis, i=i:
                                  self.arg_reduce(x, axis, name)[i])
                     for i in (0, 1))

    def extremum_reduction(self, kind: str, x, axis, return_indices,
                           tie_break_left, keep_dims) -> Any:
        """``kl.max`` or ``kl.min`` along ``axis``: NaN-ignoring, as
        Triton's (a NaN only where all are NaN), in f32 for f16 and bf16
        and in i32 for narrower integers (semantics)."""
        if return_indices:
            return self.with_indices(kind, x, axis, tie_break_left,
                                     keep_dims)
        x = self.materialize(x, None)
        x = self.cast(x, kl.BY_IR[semantics.extremum_reduction_type(
            x.type.elem)])
        op = semantics.extremum_op(kind, x.type.elem,
                                   semantics.PropagateNan.NONE)
        return self.reduced(x, axis, keep_dims, lambda x, axis: self.reduce(
            x, axis, lambda a, b, t: [f"%r = arith.{op} {a}, {b} : {t}"]))

    def builtin_max(self, x, axis=None, return_indices=False,
                    return_indices_tie_break_left=True, keep_dims=False):
        return self.extremum_reduction("max", x, axis, return_indices,
                                       return_indices_tie_break_left,
                                       keep_dims)

    def builtin_min(self, x, axis=None, return_indices=False,
                    return_indices_tie_break_left=True, keep_dims=False):
        return self.extremum_reduction("min", x, axis, return_indices,
                                       return_indices_tie_break_left,
                                       keep_dims)

    def arg_reduce(self, x, axis, better: str) -> tuple[Value, Value]:
        """The first best element along `axis` and its index, as numpy's
        argmax and argmin: a NaN is better than any number, and the first
        NaN wins (so the index is the max's or min's, whatever the order
        in which the reduction combines). 8-bit floats compare in f32."""
        if semantics.is_float8(x.type.elem):
            value, index = self.arg_reduce(self.cast(x, kl.float32), axis,
                                           better)
            return self.cast(value, kl.BY_IR[x.type.elem]), index
        n = x.type.shape[axis]
        index = self.builtin_arange(0, n)
        for d in range(len(x.type.shape)):
            if d != axis:
                index = self.expand_dims(index, d)
        index = self.broadcast_to(index, x.type.shape)
        shape = x.type.shape[:axis] + x.type.shape[axis + 1:]
        elem = x.type.elem
        sign = "u" if semantics.is_unsigned(elem) else "s"
        cmp = (f"arith.cmpf {'ogt' if better == 'max' else 'olt'}"
               if x.type.is_float else
               f"arith.cmpi {sign}{'gt' if better == 'max' else 'lt'}")
        eq = "arith.cmpf oeq" if x.type.is_float else "arith.cmpi eq"
        name = self.fresh()
        values, indices = Type(shape, elem), Type(shape, "i32")
        self.emit(f"{name}:2 = tile.reduce {x.name}, {index.name} axis {axis} "
                  f": {x.type.ir()}, {index.type.ir()} -> {values.ir()}, "
                  f"{indices.ir()} {{")
        self.emit(f"^bb0(%va: {elem}, %ia: i32, %vb: {elem}, %ib: i32):")
        take = ["%take = arith.ori %better, %tie : i1"]
        if x.type.is_float:
            # Where b is NaN, a wins only as an earlier NaN; else a NaN a
            # wins as a better a does.
            take = [f"%anan = arith.cmpf uno, %va, %va : {elem}",
                    f"%bnan = arith.cmpf uno, %vb, %vb : {elem}",
                    "%earlier_nan = arith.andi %anan, %first : i1",
                    "%number = arith.ori %better, %tie : i1",
                    "%over_number = arith.ori %anan, %number : i1",
                    "%take = arith.select %bnan, %earlier_nan, "
                    "%over_number : i1"]
        for line in [f"%better = {cmp}, %va, %vb : {elem}",
                     f"%same = {eq}, %va, %vb : {elem}",
                     "%first = arith.cmpi slt, %ia, %ib : i32",
                     "%tie = arith.andi %same, %first : i1",
                     *take,
                     f"%v = arith.select %take, %va, %vb : {elem}",
                     "%i = arith.select %take, %ia, %ib : i32",
                     f"tile.yield %v, %i : {elem}, i32"]:
            self.emit(f"  {line}")
        self.emit(f"}} {self.loc()}")
        return Value(f"{name}#0", values), Value(f"{name}#1", indices)

    def check_tie_break(self, name: str, tie_break_left: Any) -> None:
        if not tie_break_left:
            raise self.error(f"kl.{name}: tie_break_left=False is not "
                             "supported by Kiln yet")

    def builtin_argmax(self, x, axis, tie_break_left=True, keep_dims=False):
        self.check_tie_break("argmax", tie_break_left)
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.arg_reduce(x, axis, "max")[1])

    def builtin_argmin(self, x, axis, tie_break_left=True, keep_dims=False):
        self.check_tie_break("argmin", tie_break_left)
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.arg_reduce(x, axis, "min")[1])

    def builtin_cumsum(self, x, axis=0, reverse=False, dtype=None):
        return self.half_in_f32(self.summed_input(x, dtype), lambda x:
                                self.arith_scan("cumsum", x, axis, "add",
                                                reverse))

    def builtin_cumprod(self, x, axis=0, reverse=False, dtype=None):
        return self.half_in_f32(self.summed_input(x, dtype), lambda x:
                                self.arith_scan("cumprod", x, axis, "mul",
                                                reverse))

    def arith_scan(self, name: str, x: Value, axis: Any, op: str,
                   reverse: Any) -> Value:
        """The inclusive scan of ``x`` along ``axis`` by ``op`` ("add" or
        "mul"), from the last element back where ``reverse``."""
        if not x.type.shape:
            raise self.error(f"kl.{name} needs a tile")
        if isinstance(reverse, kl.constexpr):
            reverse = reverse.value
        axis = self.normalized_axis(axis, len(x.type.shape))
        elem = x.type.elem
        kind = f"arith.{op}{'f' if x.type.is_float else 'i'}"
        name = self.fresh()
        flags = " reverse" if reverse else ""
        self.emit(f"{name} = tile.scan {x.name} axis {axis}{flags} : "
                  f"{x.type.ir()} -> {x.type.ir()} {{")
        self.emit(f"^bb0(%a: {elem}, %b: {elem}):")
        self.emit(f"  %r = {kind} %a, %b : {elem}")
        self.emit(f"  tile.yield %r : {elem}")
        self.emit(f"}} {self.loc()}")
        return Value(name, x.type)

    def builtin_dot(self, a, b, acc=None, input_precision=None,
                    allow_tf32=None, max_num_imprecise_acc=None,
                    out_dtype=None):
        if not (isinstance(a, Value) and isinstance(b, Value)):
            raise self.error("kl.dot takes two tiles")
        if allow_tf32 is not None:  # Triton's older spelling
            if input_precision is not None:
                raise self.error("kl.dot takes input_precision or "
                                 "allow_tf32, not both")
            input_precision = "tf32" if allow_tf32 else "ieee"
        # Two 8-bit floats of the formats tensor cores take (e4m3, e5m2)
        # stay as they are: sm_90a's wgmma multiplies them, and the other
        # targets multiply their f16 widenings, which are exact. Any other
        # 8-bit float (or one beside a wider type) is widened here.
        tensor_core_fp8 = ("f8E4M3FN", "f8E5M2")
        into_f32 = (acc.type.elem == "f32" if isinstance(acc, Value) else
                    out_dtype is None or self.dtype_of(out_dtype).ir == "f32")
        if not (a.type.elem in tensor_core_fp8 and
                b.type.elem in tensor_core_fp8 and into_f32):
            a, b = (self.cast(v, kl.float16) if semantics.is_float8(
                v.type.elem) else v for v in (a, b))
        unsigned = [v.type.elem for v in (a, b, acc)
                    if isinstance(v, Value) and v.type.elem.startswith("ui")]
        if unsigned:
            # The IR's integer dot is signed; Triton's takes int8 only.
            raise self.error(f"kl.dot multiplies int8 integers, not "
                             f"{semantics.name(unsigned[0])}")
        if acc is None:
            elem = {"i8": "i32", "f64": "f64"}.get(a.type.elem, "f32")
            if out_dtype is not None:
                elem = self.dtype_of(out_dtype).ir
            shape = tuple(a.type.shape[:-1]) + (b.type.shape[-1],)
            acc = self.constant_tile(shape, 0, kl.BY_IR[elem])
        elif out_dtype is not None and \
                self.dtype_of(out_dtype).ir != acc.type.elem:
            raise self.error(f"kl.dot: out_dtype {out_dtype!r} differs from "
                             f"the accumulator's {acc.type.elem}")
        precision = ""
        if input_precision is not None:
            if input_precision not in ("ieee", "tf32", "tf32x3"):
                raise self.error("input_precision is 'ieee', 'tf32' or "
                                 f"'tf32x3', not {input_precision!r}")
            precision = f" input_precision = {input_precision}"
        return self.op(f"tile.dot {a.name}, {b.name}, {acc.name}{precision} "
                       f": {a.type.ir()}, {b.type.ir()} -> {acc.type.ir()}",
                       acc.type)

    def like(self, x: Any, what: str) -> Value:
        """The tile (or scalar) of numbers whose shape and type ``what``
        takes."""
        x = self.materialize(x, None)
        if x.type.elem not in kl.BY_IR:
            raise self.error(f"kl.{what} takes a tile of numbers, not "
                             f"{x.type.ir()}")
        return x

    def builtin_zeros_like(self, x):
        x = self.like(x, "zeros_like")
        return self.constant_tile(x.type.shape, 0, kl.BY_IR[x.type.elem])

    def builtin_full_like(self, x, value):
        x = self.like(x, "full_like")
        return self.constant_tile(x.type.shape, value, kl.BY_IR[x.type.elem])

    def builtin_broadcast_to(self, x, *shape):
        return self.broadcast_to(self.materialize(x, None),
                                 kl.shape_argument(shape))

    def builtin_expand_dims(self, x, axis):
        x = self.materialize(x, None)
        rank = len(x.type.shape) + 1
        if not x.type.shape:
            return self.broadcast_to(x, (1,))
        return self.expand_dims(x, self.normalized_axis(axis, rank))

    def builtin_clamp(self, x, min, max,
                      propagate_nan=semantics.PropagateNan.NONE):
        return self.minmax(self.minmax(x, min, "max", propagate_nan), max,
                           "min", propagate_nan)

    def assume(self, x, values, fact: str, hint: str) -> Value:
        """``x`` with ``fact`` (divisibility, contiguity or constancy)
        stated per dimension, as Triton's hints state it: one value for
        each dimension (a scalar has one)."""
        if not isinstance(x, Value):
            raise self.error(f"kl.{hint} takes a value of the kernel")
        if isinstance(values, kl.constexpr):
            values = values.value
        if not isinstance(values, (list, tuple)):
            values = [values]
        values = [v.value if isinstance(v, kl.constexpr) else v
                  for v in values]
        rank = max(1, len(x.type.shape))
        if len(values) != rank or not all(
                isinstance(v, int) and not isinstance(v, bool) and v > 0
                for v in values):
            raise self.error(f"kl.{hint} takes {rank} positive integer(s) "
                             f"for a value of rank {rank}, not {values}")
        if not (x.type.is_pointer or x.type.is_int):
            return x  # accepted, as Triton does, and states nothing
        facts = ", ".join(map(str, values))
        assumed = self.op(f"tile.assume {x.name} {{{fact} = array<i64: "
                          f"{facts}>}} : {x.type.ir()}", x.type)
        # Triton states the fact on the value itself, so a hint whose
        # result is dropped (`tl.multiple_of(a_ptrs, [16, 16])` as a
        # statement, as tutorial 08 writes it) still holds: the names
        # holding the value hold the stated one from here on.
        for name, value in self.scope.items():
            if value is x or (isinstance(value, Value) and value == x):
                self.scope[name] = assumed
        return assumed

    def builtin_multiple_of(self, x, values):
        return self.assume(x, values, "divisibility", "multiple_of")

    def builtin_max_contiguous(self, x, values):
        return self.assume(x, values, "contiguity", "max_contiguous")

    def builtin_max_constancy(self, x, values):
        return self.assume(x, values, "constancy", "max_constancy")

    # -- Reductions and scans with the kernel's own combining function -----

    def combined(self, kind: str, input: Any, axis: Any, combine_fn: Any,
                 reverse: bool = False) -> tuple[list[Value], bool]:
        """A ``tile.reduce`` or ``tile.scan`` (``kind``) of ``input`` (a
        tile or a tuple of tiles of one shape) along ``axis``, its region
        ``combine_fn`` (a @kiln.jit function of the running values, then
        the next ones) inlined. Returns the results and whether ``input``
        was one tile."""
        if not getattr(combine_fn, "__kiln_jit__", False):
            raise self.error("combine_fn must be a @kiln.jit function")
        single = not isinstance(input, tuple)
        tiles = [self.materialize(t, None) for t in
                 ((input,) if single else input)]
        shape = tiles[0].type.shape
        if not shape or any(t.type.shape != shape for t in tiles):
            raise self.error("the tiles combined must be tiles of one shape, "
                             "not " + ", ".join(t.type.ir() for t in tiles))
        axis = self.normalized_axis(axis, len(shape))
        elems = [t.type.elem for t in tiles]
        name = self.fresh()
        out_shape = shape if kind == "scan" else \
            shape[:axis] + shape[axis + 1:]
        results = [Type(out_shape, e) for e in elems]
        running = [Value(f"{name}_a{i}", Type((), e))
                   for i, e in enumerate(elems)]
        following = [Value(f"{name}_b{i}", Type((), e))
                     for i, e in enumerate(elems)]
        saved = self.lines
        self.lines = []
        self.depth += 1
        returned = self.inline(combine_fn, [*running, *following], {})
        returned = list(returned) if isinstance(returned, tuple) \
            else [returned]
        if len(returned) != len(tiles):
            raise self.error(f"combine_fn returns {len(returned)} values for "
                             f"{len(tiles)} tiles combined")
        values = []
        for value, elem in zip(returned, elems):
            value = self.materialize(value, Type((), elem))
            if value.type != Type((), elem):
                raise self.error(f"combine_fn returns {value.type.ir()} where "
                                 f"the tile it combines holds {elem}")
            values.append(value)
        self.lines.append("  " * self.depth + "tile.yield " + ", ".join(
            v.name for v in values) + " : " + ", ".join(elems))
        region, self.lines = self.lines, saved
        self.depth -= 1
        flags = " reverse" if reverse else ""
        self.emit(f"{_results_head(name, len(tiles))}tile.{kind} "
                  f"{', '.join(t.name for t in tiles)} axis {axis}{flags} : "
                  f"{', '.join(t.type.ir() for t in tiles)} -> "
                  f"{', '.join(r.ir() for r in results)} {{")
        arguments = ", ".join(f"{v.name}: {v.type.elem}"
                              for v in [*running, *following])
        self.emit(f"^bb0({arguments}):")
        self.lines.extend(region)
        self.emit(f"}} {self.loc()}")
        suffix = (lambda i: "") if len(tiles) == 1 else (lambda i: f"#{i}")
        return [Value(name + suffix(i), r)
                for i, r in enumerate(results)], single

    def builtin_reduce(self, input, axis, combine_fn, keep_dims=False):
        tiles = tuple(self.materialize(t, None) for t in
                      (input if isinstance(input, tuple) else (input,)))
        rank = len(tiles[0].type.shape)
        if axis is None:  # over the flattened tiles
            tiles = tuple(self.builtin_reshape(t, (math.prod(t.type.shape),))
                          for t in tiles)
        results, _ = self.combined(
            "reduce", tiles if isinstance(input, tuple) else tiles[0],
            0 if axis is None else axis, combine_fn)
        if keep_dims:
            results = [self.broadcast_to(r, (1,) * rank) if axis is None
                       or not r.type.shape else
                       self.expand_dims(r, self.normalized_axis(axis, rank))
                       for r in results]
        return tuple(results) if isinstance(input, tuple) else results[0]

    def builtin_associative_scan(self, input, axis, combine_fn,
                                 reverse=False):
        results, single = self.combined("scan", input, axis, combine_fn,
                                        bool(reverse))
        return results[0] if single else tuple(results)

    # -- Random numbers (kiln/philox.py) ------------------------------------

    def random_key(self, seed: Any) -> tuple[Any, Any]:
        """The Philox key of ``seed``: its low and high 32 bits as uint64
        (an i32 seed sign-extended first, as Triton converts it)."""
        if isinstance(seed, kl.constexpr):
            seed = seed.value
        if isinstance(seed, int) and not isinstance(seed, bool):
            seed &= (1 << 64) - 1
            return seed & 0xFFFFFFFF, seed >> 32
        if not (isinstance(seed, Value) and not seed.type.shape
                and seed.type.elem in ("i32", "i64")):
            raise self.error("a random seed is an int32 or int64 scalar")
        if seed.type.elem == "i32":
            return seed, self.binary(ast.RShift(), seed, 31)
        low = self.cast(seed, kl.int32)
        shift = self.materialize(32, seed.type)
        high = self.op(f"arith.shrui {seed.name}, {shift.name} : i64",
                       seed.type)
        return low, self.cast(high, kl.int32)

    def philox_words(self, seed, counter: list[Any], n_rounds: Any
                     ) -> tuple[Value, ...]:
        """Philox 4x32 of the int32 ``counter`` words (broadcast to one
        shape) under ``seed``'s key."""
        if isinstance(n_rounds, kl.constexpr):
            n_rounds = n_rounds.value
        if not isinstance(n_rounds, int) or n_rounds < 1:
            raise self.error("n_rounds must be a positive constant")
        words = [self.materialize(c, Type((), "i32")) for c in counter]
        for word in words:
            if word.type.elem not in ("i32", "ui32"):
                raise self.error(f"random offsets and counters are int32 or "
                                 f"uint32, not {word.type.elem}")
        shape = self.broadcast_shape(*(w.type.shape for w in words))
        words = [self.broadcast_to(self.cast(w, kl.int32), shape)
                 for w in words]
        # Triton's words are uint32 (their arithmetic is unsigned).
        return tuple(self.cast(w, kl.uint32) for w in philox.rounds(
            tuple(words), self.random_key(seed), _IROps(self), n_rounds))

    def uniform(self, x: Value) -> Value:
        """A uniform float32 in [0, 1) of the random word ``x`` (uint32
        or int32), read as int32 as Triton reads it."""
        x = self.cast(x, kl.int32)
        negative = self.binary(ast.Sub(), self.binary(ast.Sub(), 0, x), 1)
        x = self.builtin_where(self.compare(ast.Lt(), x, 0), negative, x)
        return self.binary(ast.Mult(), self.cast(x, kl.float32),
                           philox.UNIFORM_SCALE)

    def builtin_philox_impl(self, c0, c1, c2, c3, k0, k1,
                            n_rounds=philox.ROUNDS):
        if isinstance(n_rounds, kl.constexpr):
            n_rounds = n_rounds.value
        if not isinstance(n_rounds, int) or n_rounds < 1:
            raise self.error("n_rounds must be a positive constant")
        words = [self.materialize(self.assigned(w), None)
                 for w in (c0, c1, c2, c3, k0, k1)]
        elem = words[0].type.elem
        if elem not in ("ui32", "ui64") or any(
                w.type.elem != elem for w in words):
            raise self.error("kl.philox_impl takes uint32 or uint64 words, "
                             "all of one type, not " + ", ".join(
                                 semantics.name(w.type.elem) for w in words))
        return philox.rounds(tuple(words[:4]), tuple(words[4:]),
                             _LanguageOps(self), n_rounds, _bits(elem))

    def builtin_philox(self, seed, c0, c1, c2, c3, n_rounds=philox.ROUNDS):
        return self.philox_words(seed, [c0, c1, c2, c3], n_rounds)

    def builtin_randint4x(self, seed, offset, n_rounds=philox.ROUNDS):
        return self.philox_words(seed, [offset, 0, 0, 0], n_rounds)

    def builtin_randint(self, seed, offset, n_rounds=philox.ROUNDS):
        return self.builtin_randint4x(seed, offset, n_rounds)[0]

    def builtin_rand(self, seed, offset, n_rounds=philox.ROUNDS):
        return self.uniform(self.builtin_randint(seed, offset, n_rounds))

    def builtin_randn(self, seed, offset, n_rounds=philox.ROUNDS):
        words = self.builtin_randint4x(seed, offset, n_rounds)
        return self.builtin_pair_uniform_to_normal(
            self.uniform(words[0]), self.uniform(words[1]))[0]

    def builtin_trans(self, x, *dims):
        return self.trans(self.materialize(x, None), kl.shape_argument(dims))

    def builtin_permute(self, x, *dims):
        return self.trans(self.materialize(x, None), kl.shape_argument(dims)
                          or (None,))

    def builtin_reshape(self, x, *shape, can_reorder=False):
        x = self.materialize(x, None)
        shape = kl.shape_argument(shape)
        if math.prod(shape) != math.prod(x.type.shape):
            raise self.error(f"cannot reshape a tile of shape "
                             f"{list(x.type.shape)} to {list(shape)}")
        type_ = x.type.with_shape(shape)
        return self.op(f"tile.reshape {x.name} : {x.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def builtin_static_print(self, *values, sep=" ", end="\n", file=None,
                             flush=False):
        print(*(f"{semantics.name(v.type.elem)}{list(v.type.shape)}"
                if isinstance(v, Value)
                else v for v in values), sep=sep, end=end, file=file,
              flush=flush)

    def builtin_debug_barrier(self):
        self.emit(f"tile.barrier {self.loc()}")

    def builtin_assume(self, condition):
        if not isinstance(condition, Value) and not condition:
            raise self.error("kl.assume of a condition that is false")

    def builtin_add(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Add(), x, y)

    def builtin_sub(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Sub(), x, y)

    def builtin_mul(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Mult(), x, y)

    def builtin_fdiv(self, x, y, ieee_rounding=False, approx=False):
        if ieee_rounding and approx:
            raise self.error("kl.fdiv: approx and ieee_rounding cannot both "
                             "be True")
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        a, b = self.unify(x, y, division=True)
        if not a.type.is_float:
            raise self.error("kl.fdiv divides floats, not "
                             f"{a.type.elem}")
        if approx and a.type.elem != "f32":
            raise self.error(f"kl.fdiv(approx=True) divides float32, not "
                             f"{a.type.elem}")
        return self.divide(a, b, "ieee" if ieee_rounding else
                           "approx" if approx else "full")

    def float32_only(self, name: str, *values) -> list[Value]:
        values = [self.materialize(v, Type((), "f32")) for v in values]
        if any(v.type.elem != "f32" for v in values):
            raise self.error(f"kl.{name} takes float32, not "
                             f"{', '.join(v.type.elem for v in values)}")
        return values

    def builtin_div_rn(self, x, y):
        a, b = self.unify(*self.float32_only("div_rn", x, y))
        return self.divide(a, b, "ieee")

    def builtin_sqrt_rn(self, x):
        return self.unary_math("math.sqrt", *self.float32_only("sqrt_rn", x),
                               exact=True)

    def builtin_umulhi(self, x, y):
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        x, y = self.unify(x, y)
        if x.type.elem not in ("i32", "i64", "ui32", "ui64"):
            raise self.error(f"kl.umulhi takes 32- or 64-bit integers, not "
                             f"{x.type.elem}")
        return self.high_product("arith.mului_extended", x, y)

    def high_product(self, op: str, x: Value, y: Value) -> Value:
        """The high half of ``x * y`` by ``op`` (``arith.mului_extended``
        or ``arith.mulsi_extended``)."""
        name = self.fresh()
        self.emit(f"{name}:2 = {op} {x.name}, {y.name} : {x.type.ir()} "
                  f"{self.loc()}")
        return Value(f"{name}#1", x.type)

    def builtin_ravel(self, x, can_reorder=False):
        x = self.materialize(x, None)
        return self.builtin_reshape(x, math.prod(x.type.shape))

    def builtin_view(self, x, *shape):
        return self.builtin_reshape(x, *shape)

    def builtin_squeeze(self, x, dim):
        x = self.materialize(x, None)
        rank = len(x.type.shape)
        dim = self.normalized_axis(dim, rank)
        if x.type.shape[dim] != 1:
            raise self.error(f"kl.squeeze: dimension {dim} has size "
                             f"{x.type.shape[dim]}, not 1")
        return self.builtin_reshape(
            x, x.type.shape[:dim] + x.type.shape[dim + 1:])

    def builtin_unsqueeze(self, x, dim):
        return self.builtin_expand_dims(x, dim)

    def pair_index(self, shape: tuple[int, ...]) -> Value:
        """``k == 0`` over a tile of ``shape``, whose last dimension (of
        size 2) holds k."""
        index = self.builtin_arange(0, 2)
        for _ in shape[:-1]:
            index = self.expand_dims(index, 0)
        return self.compare(ast.Eq(), self.broadcast_to(index, shape), 0)

    def builtin_join(self, a, b):
        if not isinstance(a, Value) and not isinstance(b, Value):
            a = self.materialize(a, None)
        a, b = self.unify(a, b)
        shape = self.broadcast_shape(a.type.shape, b.type.shape) + (2,)
        a, b = (self.broadcast_to(self.expand_dims(v, len(shape) - 1)
                                  if v.type.shape else v, shape)
                for v in (a, b))
        return self.builtin_where(self.pair_index(shape), a, b)

    def builtin_split(self, a):
        """Each half is the or of the half's bits with zeros, which no
        combining order changes."""
        a = self.materialize(a, None)
        if not a.type.shape or a.type.shape[-1] != 2:
            raise self.error(f"kl.split needs a last dimension of size 2, "
                             f"not a tile of shape {list(a.type.shape)}")
        bits = a if a.type.is_int else self.method_to(
            a, kl.BY_IR[f"i{_bits(a.type.elem)}"], bitcast=True)
        first = self.pair_index(a.type.shape)
        halves = []
        for take in (first, self.compare(ast.Eq(), first, False)):
            masked = self.builtin_where(take, bits, 0)
            half = self.arith_reduction(masked, -1, False, "or")
            halves.append(half if a.type.is_int else self.method_to(
                half, kl.BY_IR[a.type.elem], bitcast=True))
        return tuple(halves)

    def builtin_interleave(self, a, b):
        joined = self.builtin_join(a, b)
        shape = joined.type.shape
        return self.builtin_reshape(joined, shape[:-2] + (2 * shape[-2],))

    def builtin_cat(self, input, other, can_reorder=False, dim=0):
        a, b = self.materialize(input, None), self.materialize(other, None)
        rank = len(a.type.shape)
        if not rank or a.type.shape != b.type.shape:
            raise self.error(f"kl.cat takes two tiles of one shape, not "
                             f"{list(a.type.shape)} and {list(b.type.shape)}")
        dim = self.normalized_axis(dim, rank)
        joined = self.builtin_join(a, b)
        order = list(range(rank))
        order.insert(dim, rank)
        moved = self.trans(joined, tuple(order))
        shape = list(a.type.shape)
        shape[dim] *= 2
        return self.builtin_reshape(moved, tuple(shape))

    def builtin_flip(self, x, dim=None):
        """Triton's exchange: along each of the size-2 dimensions the
        flipped one is reshaped into, an element's bits xor the pair's
        xor-sum are its partner's."""
        x = self.materialize(x, None)
        shape = x.type.shape
        if not shape:
            raise self.error("kl.flip needs a tile")
        dim = self.normalized_axis(len(shape) - 1 if dim is None else dim,
                                   len(shape))
        size = shape[dim]
        if size & (size - 1):
            raise self.error(f"kl.flip reverses a dimension whose size is a "
                             f"power of two, not {size}")
        steps = size.bit_length() - 1
        bits = x if x.type.is_int and x.type.elem != "i1" else \
            self.method_to(x, kl.BY_IR[f"i{max(8, _bits(x.type.elem))}"],
                           bitcast=x.type.elem != "i1")
        y = self.builtin_reshape(bits, shape[:dim] + (2,) * steps
                                 + shape[dim + 1:])
        for i in range(steps):
            pair = self.arith_reduction(y, dim + i, True, "xor")
            y = self.binary(ast.BitXor(), y, pair)
        y = self.builtin_reshape(y, shape)
        if y.type.elem == x.type.elem:
            return y
        return self.method_to(y, kl.BY_IR[x.type.elem],
                              bitcast=x.type.elem != "i1")

    # -- Bitonic sorting (Triton's network, on a tile reshaped to a
    # hypercube of 2 x 2 x ... dimensions) ---------------------------------

    def indicator(self, dims: int, j: int) -> Value:
        """0 or 1 along hypercube dimension ``j`` counted from the
        innermost, as an i32 tile of ``dims`` dimensions."""
        return self.builtin_reshape(self.builtin_arange(0, 2),
                                    (1,) * (dims - j - 1) + (2,) + (1,) * j)

    def compare_and_swap(self, h: Value, flip: Any, i: int) -> Value:
        """Each element against its partner along hypercube dimension
        ``i`` (from the innermost): the pair ordered ascending where
        ``flip`` is 0 and descending where it is 1."""
        dims = len(h.type.shape)
        bits = kl.BY_IR[f"i{_bits(h.type.elem)}"]
        ix = self.method_to(h, bits, bitcast=True)
        partner = self.binary(ast.BitXor(), ix, self.arith_reduction(
            ix, dims - 1 - i, True, "xor"))
        y = self.method_to(partner, kl.BY_IR[h.type.elem], bitcast=True)
        right = self.binary(ast.BitXor(), flip, self.indicator(dims, i))
        swap = self.compare(ast.NotEq(), self.compare(ast.Gt(), h, y),
                            self.compare(ast.NotEq(), right, 0))
        return self.builtin_where(swap, y, h)

    def merge_hypercube(self, h: Value, stage: int, order: int) -> Value:
        """``stage`` rounds of compare-and-swap: ascending (order 0),
        descending (1) or alternating by blocks (2)."""
        flip = self.indicator(len(h.type.shape), stage) if order == 2 \
            else order
        for i in range(stage):
            h = self.compare_and_swap(h, flip, stage - 1 - i)
        return h

    def sorted_last(self, name: str, x: Any, k: Any, dim: Any,
                    descending: Any) -> Value:
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem):  # compared in f32, exactly
            return self.cast(self.sorted_last(
                name, self.cast(x, kl.float32), k, dim, descending),
                kl.BY_IR[x.type.elem])
        shape = x.type.shape
        if isinstance(descending, kl.constexpr):
            descending = descending.value
        descending = int(bool(descending))
        if not shape or (dim is not None and self.normalized_axis(
                dim, len(shape)) != len(shape) - 1):
            raise self.error(f"kl.{name} sorts along the last dimension of "
                             "a tile")
        if x.type.elem == "i1" or any(n & (n - 1) for n in shape):
            raise self.error(f"kl.{name} sorts tiles of numbers whose sizes "
                             f"are powers of two, not {x.type.ir()}")
        log_n = shape[-1].bit_length() - 1
        log_k = log_n if k is None else k.bit_length() - 1
        if k is not None and (k <= 0 or k & (k - 1) or k > shape[-1]):
            raise self.error(f"kl.topk: k is a power of two no larger than "
                             f"{shape[-1]}, not {k}")
        reduce = self.builtin_max if descending else self.builtin_min
        if log_k == 0:
            return reduce(x, len(shape) - 1, keep_dims=True)
        dims = math.prod(shape).bit_length() - 1
        h = self.builtin_reshape(x, (2,) * dims)
        for i in range(1, log_k + 1):
            h = self.merge_hypercube(h, i, 2 if i < log_n else descending)
        for i in range(log_k + 1, log_n + 1):
            h = reduce(h, len(h.type.shape) - 1 - log_k)
            h = self.merge_hypercube(h, log_k,
                                     2 if i < log_n else descending)
        return self.builtin_reshape(h, shape[:-1] + (1 << log_k,))

    def builtin_sort(self, x, dim=None, descending=False):
        return self.sorted_last("sort", x, None, dim, descending)

    def builtin_topk(self, x, k, dim=None, descending=True):
        if isinstance(k, kl.constexpr):
            k = k.value
        if not isinstance(k, int) or isinstance(k, bool):
            raise self.error(f"kl.topk takes a constant k, not {k!r}")
        return self.sorted_last("topk", x, k, dim, descending)

    def builtin_bitonic_merge(self, x, dim=None, descending=False):
        x = self.materialize(x, None)
        shape = x.type.shape
        if not shape or any(n & (n - 1) for n in shape):
            raise self.error("kl.bitonic_merge takes a tile whose sizes are "
                             "powers of two")
        if isinstance(descending, kl.constexpr):
            descending = descending.value
        h = self.builtin_reshape(x, (2,) * (math.prod(shape).bit_length()
                                            - 1))
        h = self.merge_hypercube(h, shape[-1].bit_length() - 1,
                                 int(bool(descending)))
        return self.builtin_reshape(h, shape)

    def builtin_broadcast(self, input, other):
        a, b = (self.materialize(v, None) for v in (input, other))
        shape = self.broadcast_shape(a.type.shape, b.type.shape)
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    def builtin_to_tensor(self, x):
        return self.materialize(x, None)

    def builtin_softmax(self, x, dim=None, *, keep_dims=None,
                        ieee_rounding=False):
        x = self.materialize(x, None)
        axis = 0 if dim is None else dim
        shifted = self.binary(ast.Sub(), x, self.builtin_max(
            x, axis, keep_dims=True))
        numerator = self.unary_math("math.exp", shifted)
        return self.builtin_fdiv(numerator, self.builtin_sum(
            numerator, axis, keep_dims=True), ieee_rounding)

    def builtin_swizzle2d(self, i, j, size_i, size_j, size_g):
        b = self.binary
        ij = b(ast.Add(), b(ast.Mult(), i, size_j), j)
        size_gj = b(ast.Mult(), size_g, size_j)
        off_i = b(ast.Mult(), b(ast.FloorDiv(), ij, size_gj), size_g)
        size_g = self.minmax(b(ast.Sub(), size_i, off_i), size_g, "min") \
            if isinstance(off_i, Value) or isinstance(size_i, Value) else \
            min(size_i - off_i, size_g)
        ij = b(ast.Mod(), ij, size_gj)
        return (b(ast.Add(), off_i, b(ast.Mod(), ij, size_g)),
                b(ast.FloorDiv(), ij, size_g))

    def builtin_uint_to_uniform_float(self, x):
        x = self.materialize(x, None)
        if x.type.elem not in ("i32", "ui32"):
            raise self.error(f"kl.uint_to_uniform_float takes uint32 or "
                             f"int32 words, not {x.type.elem}")
        return self.uniform(x)

    def builtin_pair_uniform_to_normal(self, u1, u2):
        u1 = self.builtin_maximum(u1, 1.0e-7)
        angle = self.binary(ast.Mult(), 6.283185307179586, u2)
        radius = self.unary_math("math.sqrt", self.binary(
            ast.Mult(), -2.0, self.unary_math("math.log", u1)))
        return (self.binary(ast.Mult(), radius,
                            self.unary_math("math.cos", angle)),
                self.binary(ast.Mult(), radius,
                            self.unary_math("math.sin", angle)))

    def builtin_rand4x(self, seed, offsets, n_rounds=philox.ROUNDS):
        return tuple(self.uniform(w) for w in
                     self.builtin_randint4x(seed, offsets, n_rounds))

    def builtin_randn4x(self, seed, offsets, n_rounds=philox.ROUNDS):
        u = self.builtin_rand4x(seed, offsets, n_rounds)
        return (self.builtin_pair_uniform_to_normal(u[0], u[1])
                + self.builtin_pair_uniform_to_normal(u[2], u[3]))

    def builtin_static_assert(self, condition, message=""):
        if isinstance(condition, Value):
            raise self.error("kl.static_assert needs a constant condition")
        if not condition:
            raise self.error(f"static assertion failed: {message}"
                             if message else "static assertion failed")

    def builtin_device_print(self, prefix, *args, hex=False):
        if hex:
            raise self.error("kl.device_print(hex=True) is not supported by "
                             "Kiln yet")
        if not isinstance(prefix, str):
            raise self.error("kl.device_print takes a constant string prefix "
                             "first")
        values = [self.materialize(a, None) for a in args]
        for i, value in enumerate(values):
            if value.type.is_pointer:
                raise self.error(f"kl.device_print prints integers and "
                                 f"floats, but argument {i + 1} is "
                                 f"{value.type.ir()}")
            if value.type.elem == "ui64":
                raise self.error("kl.device_print of uint64 is not "
                                 "supported by Kiln yet (tile.print takes "
                                 "integers as signed); print it as int64")
        # tile.print takes integers as signed: narrower unsigned ones
        # print through int64, exactly.
        values = [self.cast(v, kl.int64) if v.type.is_unsigned and
                  v.type.elem != "i1" else v for v in values]
        shape = self.broadcast_shape(*(v.type.shape for v in values)) \
            if values else ()
        values = [self.broadcast_to(v, shape) for v in values]
        operands = ""
        if values:
            operands = (f", {', '.join(v.name for v in values)} : "
                        f"{', '.join(v.type.ir() for v in values)}")
        self.emit(f"tile.print {ir_text.string_literal(prefix)}{operands} "
                  f"{self.loc()}")

    def builtin_device_assert(self, condition, message="", mask=None):
        if not isinstance(message, str):
            raise self.error("kl.device_assert takes a constant string "
                             "message")
        condition = self.materialize(condition, Type((), "i1"))
        if condition.type.elem != "i1":
            raise self.error("kl.device_assert needs a boolean condition, "
                             f"not {condition.type.ir()}")
        if mask is not None:  # checked only where the mask holds
            condition = self.binary(ast.BitOr(), condition, self.compare(
                ast.Eq(), self.materialize(mask, Type((), "i1")), False))
        if not self.debug:
            return
        if not message:
            call = self.node
            message = ast.get_source_segment(
                self.source_text,
                call.args[0]) if isinstance(call, ast.Call) and call.args \
                else "device_assert"
        self.emit(f"tile.assert {condition.name}, "
                  f"{ir_text.string_literal(message)} : {condition.type.ir()} "
                  f"{self.loc()}")


#: The most bits a compile-time integer may take: 2**2**40 would take
#: minutes to fold.
MAX_CONSTANT_BITS = 4096


#: Triton's loop hints that Kiln takes and does not act on, with why; a
#: loop given one says so in a remark (disallow_acc_multi_buffer, which
#: forbids what Kiln never does, needs none).
_UNUSED_LOOP_HINTS = {
    "flatten": "Kiln pipelines an inner loop within each iteration of this "
               "one, not across them",
    "warp_specialize": "Kiln has no warp specialization yet",
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


def _bounded_power(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 \
            and b * abs(a).bit_length() > MAX_CONSTANT_BITS:
        raise OverflowError(f"{a} ** {b} takes more than "
                            f"{MAX_CONSTANT_BITS} bits")
    return a ** b


def _bounded_shift(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and a and \
            b + a.bit_length() > MAX_CONSTANT_BITS:
        raise OverflowError(f"{a} << {b} takes more than "
                            f"{MAX_CONSTANT_BITS} bits")
    return a << b


_PYTHON_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.Pow: _bounded_power, ast.LShift: _bounded_shift,
    ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}


#: The math ops whose float32 form Triton approximates on the GPU (the
#: `afn` flag; kiln-approximate-math-to-nvvm and libdevice lower them).
_APPROXIMATE_MATH = ("math.exp", "math.sqrt")

#: The fastmath flags that mark float32 division as rounded (see
#: CodeGenerator.divide; kiln-approximate-math-to-nvvm lowers them).
_DIVISION_FLAGS = {"full": " fastmath<arcp>", "approx": " fastmath<afn>",
                   "ieee": ""}


# kl functions that are one `math` op on a float tile.
_UNARY_MATH = {name: f"math.{name}" for name in (
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh",
    "erf", "floor", "ceil")}


class _IROps:
    """Philox's 32-bit unsigned arithmetic as IR on int32 values (tiles
    and scalars) and Python ints (a constant key)."""

    def __init__(self, gen: CodeGenerator) -> None:
        self.gen = gen

    def mulhi(self, constant: int, x: Value) -> Value:
        """The high word of the 64-bit product, through i64."""
        g = self.gen
        wide = x.type.with_elem("i64")
        x64 = g.op(f"arith.extui {x.name} : {x.type.ir()} to {wide.ir()}",
                   wide)
        product = g.binary(ast.Mult(), x64, constant)
        shift = g.broadcast_to(g.materialize(32, Type((), "i64")),
                               wide.shape)
        high = g.op(f"arith.shrui {product.name}, {shift.name} : "
                    f"{wide.ir()}", wide)
        return g.cast(high, kl.int32)

    def mullo(self, constant: int, x: Value) -> Value:
        return self.gen.binary(ast.Mult(), x, philox.signed32(constant))

    def xor(self, x: Any, y: Any) -> Any:
        if not isinstance(x, Value) and not isinstance(y, Value):
            return x ^ y
        y = philox.signed32(y) if isinstance(y, int) else y
        return self.gen.binary(ast.BitXor(), x, y)

    def add(self, x: Any, constant: int) -> Any:
        if not isinstance(x, Value):
            return (x + constant) & 0xFFFFFFFF
        return self.gen.binary(ast.Add(), x, philox.signed32(constant))


class _LanguageOps:
    """Philox's arithmetic as the language's operators on the caller's
    typed words (``kl.philox_impl``)."""

    def __init__(self, gen: CodeGenerator) -> None:
        self.gen = gen

    def mulhi(self, constant: int, x: Value) -> Value:
        return self.gen.builtin_umulhi(constant, x)

    def mullo(self, constant: int, x: Value) -> Value:
        return self.gen.binary(ast.Mult(), constant, x)

    def xor(self, x: Value, y: Value) -> Value:
        return self.gen.binary(ast.BitXor(), x, y)

    def add(self, x: Value, constant: int) -> Value:
        return self.gen.binary(ast.Add(), x, constant)


@dataclass(frozen=True)
class _Unmerged:
    """A name whose value after a region op is of no one type: an error
    where it is read."""

    message: str


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


def _leaves(value: Any) -> list[Any]:
    """The values of a (nested) tuple, in order; a value is its own."""
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _shape_of(value: Any) -> Any:
    """How ``value`` nests tuples: None for a value."""
    if isinstance(value, tuple):
        return tuple(_shape_of(item) for item in value)
    return None


def _rebuild(shape: Any, leaves: Iterator[Any]) -> Any:
    """A value of ``shape`` (see ``_shape_of``) from ``leaves``."""
    if shape is None:
        return next(leaves)
    return tuple(_rebuild(item, leaves) for item in shape)


def _results_head(op: str, count: int) -> str:
    """The `%r = ` or `%r:N = ` that names a region op's results."""
    if count == 0:
        return ""
    return f"{op} = " if count == 1 else f"{op}:{count} = "


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
