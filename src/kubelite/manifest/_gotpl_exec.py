"""Executing a parsed go-template: pipelines, variables, control flow and calls."""
from __future__ import annotations

from kubelite.manifest._gotpl_errors import NAME
from kubelite.manifest._gotpl_funcs import _BUILTINS, _CallError, _REFLECT_VALUE_PARAMS, _SIGNATURES, _STRING_PARAMS
from kubelite.manifest._gotpl_nodes import (
    Action, Bool, Branch, Chain, Command, Dot, Field, Identifier, Invoke, Jump, ListNode, Nil, Number, Pipe,
    String, Text, Variable,
)
from kubelite.manifest._gotpl_parse import Template
from kubelite.manifest._gotpl_values import _truth, INVALID, type_name
from kubelite.manifest._govalues import go_quote, go_sprint


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Fail(Exception):
    pass


_MISSING_FINAL = object()  # no value piped into a command


class _State:
    def __init__(self, template: Template, allow_missing_keys: bool):
        self.template = template
        self.missing_error = not allow_missing_keys
        self.out: list[str] = []
        self.node = None
        self.vars: list[list] = []  # [name, value, boxed]
        self.depth = 0

    def at(self, node) -> None:
        self.node = node

    def errorf(self, message: str):
        if self.node is None:
            text = f"template: {NAME}: {message}"
        else:
            pos = self.node.pos
            source = self.template.source
            last_nl = source.rfind("\n", 0, pos)
            col = pos if last_nl < 0 else pos - (last_nl + 1)
            line = 1 + source.count("\n", 0, pos)
            context = str(self.node)
            text = f'template: {NAME}:{line}:{col}: executing "{NAME}" at <{context}>: {message}'
        raise _Fail(text)

    # variables
    def var(self, name: str) -> tuple:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry[1], entry[2]
        self.errorf(f"undefined variable: {name}")

    def set_var(self, name: str, value, boxed=False) -> None:
        for entry in reversed(self.vars):
            if entry[0] == name:
                entry[1], entry[2] = value, boxed
                return
        self.errorf(f"undefined variable: {name}")

    # walking
    def walk(self, dot, node) -> None:
        self.at(node)
        if isinstance(node, Action):
            value = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.at(node)
                self.out.append("<no value>" if value is INVALID else go_sprint(value))
        elif isinstance(node, ListNode):
            for child in node.nodes:
                self.walk(dot, child)
        elif isinstance(node, Text):
            self.out.append(node.text)
        elif isinstance(node, Branch):
            if node.kind == "range":
                self.walk_range(dot, node)
            else:
                self.walk_if_or_with(dot, node)
        elif isinstance(node, Jump):
            raise _Break() if node.kind == "break" else _Continue()
        elif isinstance(node, Invoke):
            self.walk_template(dot, node)

    def walk_if_or_with(self, dot, node: Branch) -> None:
        mark = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            if _truth(value):
                self.walk((value, False) if node.kind == "with" else dot, node.body)
            elif node.orelse is not None:
                self.walk(dot, node.orelse)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot, node: Branch) -> None:
        self.at(node)
        outer = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            mark = len(self.vars)
            pipe = node.pipe
            if isinstance(value, list):
                pairs = [(i, v) for i, v in enumerate(value)]
            elif isinstance(value, dict):
                pairs = [(k, value[k]) for k in sorted(value, key=lambda k: k.encode("utf-8"))]
            elif value is INVALID or value is None:
                pairs = []
            else:
                self.errorf(f"range can't iterate over {go_sprint(value)}")
            for index, elem in pairs:
                boxed = True
                if pipe.decl:
                    if pipe.is_assign:
                        if len(pipe.decl) > 1:
                            self.set_var(pipe.decl[0].idents[0], index)
                        else:
                            self.set_var(pipe.decl[0].idents[0], elem, boxed)
                    else:
                        self.vars[-1][1:] = [elem, boxed]
                if len(pipe.decl) > 1:
                    if pipe.is_assign:
                        self.set_var(pipe.decl[1].idents[0], elem, boxed)
                    else:
                        self.vars[-2][1:] = [index, False]
                try:
                    self.walk((elem, boxed), node.body)
                except _Continue:
                    pass
                except _Break:
                    return
                finally:
                    del self.vars[mark:]
            if not pairs and node.orelse is not None:
                self.walk(dot, node.orelse)
        finally:
            del self.vars[outer:]

    def walk_template(self, dot, node: Invoke) -> None:
        body = self.template.defined.get(node.name)
        if body is None:
            self.errorf(f"template {go_quote(node.name)} not defined")
        if self.depth >= 100000:
            self.errorf("exceeded maximum template depth (100000)")
        value = self.eval_pipeline(dot, node.pipe) if node.pipe is not None else dot[0]
        saved_vars, self.vars = self.vars, [["$", value, False]]
        self.depth += 1
        try:
            self.walk((value, False), body)
        finally:
            self.vars = saved_vars
            self.depth -= 1

    # evaluation
    def eval_pipeline(self, dot, pipe: Pipe | None):
        if pipe is None:
            return INVALID
        self.at(pipe)
        value = _MISSING_FINAL
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if value is None:  # an interface holding nil: "dig down" leaves no value
                value = INVALID
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.idents[0], value)
            else:
                self.vars.append([variable.idents[0], value, False])
        return value

    def not_a_function(self, args: list, final) -> None:
        if len(args) > 1 or final is not _MISSING_FINAL:
            self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot, cmd: Command, final):
        first = cmd.args[0]
        if isinstance(first, Field):
            self.at(first)
            return self.eval_field_chain(dot, dot[0], dot[1], first, first.idents, cmd.args, final)
        if isinstance(first, Chain):
            return self.eval_chain(dot, first, cmd.args, final)
        if isinstance(first, Identifier):
            self.at(first)
            return self.call(dot, first.name, cmd, cmd.args[1:], final)
        if isinstance(first, Pipe):
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, Variable):
            return self.eval_variable(dot, first, cmd.args, final)
        self.at(first)
        self.not_a_function(cmd.args, final)
        if isinstance(first, Bool):
            return first.value
        if isinstance(first, Dot):
            return dot[0]
        if isinstance(first, Nil):
            self.errorf("nil is not a command")
        if isinstance(first, Number):
            return first.value
        if isinstance(first, String):
            return first.text
        self.errorf(f"can't evaluate command {go_quote(str(first))}")

    def eval_chain(self, dot, chain: Chain, args, final):
        self.at(chain)
        if isinstance(chain.node, Nil):
            self.errorf(f"indirection through explicit nil in {chain}")
        receiver = self.eval_arg(dot, chain.node)
        return self.eval_field_chain(dot, receiver, False, chain, chain.fields, args, final)

    def eval_variable(self, dot, variable: Variable, args, final):
        self.at(variable)
        value, boxed = self.var(variable.idents[0])
        if len(variable.idents) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, boxed, variable, variable.idents[1:], args, final)

    def eval_field_chain(self, dot, receiver, boxed, node, idents, args, final):
        for name in idents[:-1]:
            receiver = self.eval_field(name, [], _MISSING_FINAL, receiver, boxed)
            boxed = True
        return self.eval_field(idents[-1], args, final, receiver, boxed)

    def eval_field(self, name: str, args, final, receiver, boxed):
        if receiver is INVALID:
            if self.missing_error:
                self.errorf(f"nil data; no entry for key {go_quote(name)}")
            return INVALID
        typ = "interface {}" if boxed else type_name(receiver)
        if receiver is None:
            self.errorf(f"nil pointer evaluating {typ}.{name}")
        if isinstance(receiver, dict):
            if len(args) > 1 or final is not _MISSING_FINAL:
                self.errorf(f"{name} is not a method but has arguments")
            if name in receiver:
                return receiver[name]
            if self.missing_error:
                self.errorf(f"map has no entry for key {go_quote(name)}")
            return INVALID
        self.errorf(f"can't evaluate field {name} in type {typ}")

    def eval_arg(self, dot, node, keep_invalid: bool = False):
        """An argument as an interface{} parameter receives it (no value becomes nil), or as a
        reflect.Value parameter does (`keep_invalid`)."""
        self.at(node)
        if isinstance(node, Dot):
            value = dot[0]
        elif isinstance(node, Nil):
            return None
        elif isinstance(node, Field):
            value = self.eval_field_chain(dot, dot[0], dot[1], node, node.idents, [node], _MISSING_FINAL)
        elif isinstance(node, Variable):
            value = self.eval_variable(dot, node, [node], _MISSING_FINAL)
        elif isinstance(node, Pipe):
            value = self.eval_pipeline(dot, node)
        elif isinstance(node, Identifier):
            value = self.call(dot, node.name, node, [], _MISSING_FINAL)
        elif isinstance(node, Chain):
            value = self.eval_chain(dot, node, [node], _MISSING_FINAL)
        elif isinstance(node, Bool):
            value = node.value
        elif isinstance(node, Number):
            value = node.value
        elif isinstance(node, String):
            value = node.text
        else:
            self.errorf(f"can't handle assignment of {node} to empty interface argument")
        return None if value is INVALID and not keep_invalid else value

    def string_arg(self, dot, node) -> str:
        """An argument to a string parameter (printf's format, base64decode's input)."""
        self.at(node)
        if isinstance(node, (Dot, Field, Variable, Pipe, Identifier, Chain)):
            value = self.eval_arg(dot, node)
            self.at(node)
            if value is None:
                self.errorf("invalid value; expected string")
            if not isinstance(value, str):
                self.errorf(f"wrong type for value; expected string; got {type_name(value)}")
            return value
        if isinstance(node, Nil):
            self.errorf("cannot assign nil to string")
        if isinstance(node, String):
            return node.text
        self.errorf(f"expected string; found {node}")

    def call(self, dot, name: str, node, args: list, final):
        have = len(args) + (final is not _MISSING_FINAL)
        fixed, variadic = _SIGNATURES[name]
        if variadic:
            if have < fixed:
                self.errorf(f"wrong number of args for {name}: want at least {fixed} got {len(args)}")
        elif have != fixed:
            self.errorf(f"wrong number of args for {name}: want {fixed} got {have}")
        if name in ("and", "or"):
            value = INVALID
            for arg in args:
                value = self.eval_arg(dot, arg, True)
                if _truth(value) == (name == "or"):
                    return value
            if final is not _MISSING_FINAL:
                value = final
            return value
        string_params = _STRING_PARAMS.get(name, 0)
        reflective = name in _REFLECT_VALUE_PARAMS  # no value reaches them as such, not as nil
        values = []
        for i, arg in enumerate(args):
            values.append(self.string_arg(dot, arg) if i < string_params else
                          self.eval_arg(dot, arg, reflective))
        if final is not _MISSING_FINAL:
            if len(values) < string_params:
                if not isinstance(final, str):
                    self.errorf(f"wrong type for value; expected string; got {type_name(final)}" if final
                                is not INVALID else "invalid value; expected string")
            values.append(None if final is INVALID and not reflective else final)
        try:
            return _BUILTINS[name](values)
        except _CallError as err:
            self.at(node)
            self.errorf(f"error calling {name}: {err}")
