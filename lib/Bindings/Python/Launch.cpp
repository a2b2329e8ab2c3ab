//===- Launch.cpp - @kiln.jit's cache-hit launch, in C ----------*- C++ -*-===//
//
// The CPython extension `kiln._launch`: what a `kernel[grid](...)` launch
// that has been compiled before costs, without running Python code. It reads
// each argument's share of the specialization key (the kernel argument type
// the full path would give it, as a token of kiln.launch_keys), finds the
// loaded kernel under that key, and launches it through the C API's
// kilnCudaModuleLaunch on PyTorch's current stream. Anything it cannot read
// (numpy arrays, DLPack-only arrays, unusual constexprs or grids, ...) goes
// back to Python: the full path checks everything and registers the key, so
// a key only ever stands for what the full path saw (see kiln/jit.py).
//
// Built on CPython's stable ABI (abi3), so one build serves every CPython
// from 3.10; it links neither libKilnCAPI nor the CUDA driver: the launch
// function's address comes from ctypes.
//
//===----------------------------------------------------------------------===//

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

/// kilnCudaModuleLaunch's signature (include/kiln-c/Kiln.h).
using LaunchFunction = void *(*)(void *module, const char *kernel,
                                 const unsigned grid[3], void **args,
                                 size_t numArgs, uint64_t stream);

/// The largest grid size (kiln.arguments.MAX_GRID).
constexpr long long kMaxGrid = 0x7fffffffLL;

/// A launch takes at most this many parameters on the fast path; a kernel
/// with more takes the full path.
constexpr Py_ssize_t kMaxParameters = 64;

/// What kiln.launch_keys gives the extension once (`configure`): the tokens
/// of the scalar types and the Python helpers for what is read rarely.
struct Configuration {
  /// i32, i32 divisible by 16, i32 equal to 1, then the same for i64.
  PyObject *integerTokens[6] = {};
  PyObject *f32Token = nullptr;
  PyObject *i1Token = nullptr;
  /// classify(value) -> 0 (full path), 1 (PyTorch tensor) or 2 (read by
  /// readArgument); asked once per Python type.
  PyObject *classify = nullptr;
  /// readArgument(value, specialize) -> (key share, address) or None.
  PyObject *readArgument = nullptr;
  /// pointerTokens(tensor) -> (unaligned, aligned) tokens of a pointer to
  /// its element type; asked once per PyTorch dtype.
  PyObject *pointerTokens = nullptr;
  /// constantKey(value) -> a constexpr's share of the key.
  PyObject *constantKey = nullptr;
  /// normalizeGrid(grid) -> a checked tuple of 1 to 3 ints (or raises).
  PyObject *normalizeGrid = nullptr;
  /// Type -> kind (classify's answer), and dtype -> pointerTokens' answer.
  PyObject *kinds = nullptr;
  PyObject *dtypeTokens = nullptr;
  /// Interned attribute names.
  PyObject *isCuda = nullptr, *numel = nullptr, *dataPtr = nullptr,
           *getDevice = nullptr, *dtype = nullptr, *interpret = nullptr,
           *debug = nullptr, *grid = nullptr, *fail = nullptr, *torch = nullptr;
  /// PyTorch's current-stream getter, looked up for the torch module seen.
  PyObject *torchModule = nullptr;
  PyObject *getStream = nullptr;
};

Configuration config;

/// Stores `value` (a new reference) in `slot`, releasing what was there.
void replace(PyObject **slot, PyObject *value) {
  PyObject *old = *slot;
  *slot = value;
  Py_XDECREF(old);
}

bool environmentFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

/// A kernel argument as the fast path read it.
struct Value {
  enum Kind : char { Pointer, Integer, Float, Bool } kind;
  union {
    unsigned long long address;
    long long integer;
    double real;
    bool flag;
  };
};

//===----------------------------------------------------------------------===//
// Kernel: one loaded kernel and how its parameters are packed.
//===----------------------------------------------------------------------===//

struct KernelObject {
  PyObject_HEAD
  LaunchFunction launch;
  void *module;
  char *name;
  /// One letter per parameter: p (pointer), b (i1), i (i32), l (i64),
  /// f (f32).
  char *kinds;
  Py_ssize_t numParameters;
};

int kernelInit(PyObject *self, PyObject *args, PyObject *kwargs) {
  auto *kernel = reinterpret_cast<KernelObject *>(self);
  unsigned long long launch, module;
  const char *name, *kinds;
  static const char *keywords[] = {"launch", "module", "name", "kinds",
                                   nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KKys",
                                   const_cast<char **>(keywords), &launch,
                                   &module, &name, &kinds))
    return -1;
  size_t count = std::strlen(kinds);
  if (std::strspn(kinds, "pbilf") != count ||
      count > static_cast<size_t>(kMaxParameters)) {
    PyErr_Format(PyExc_ValueError, "kernel parameter kinds %s are not all "
                 "of pbilf, or more than %zd", kinds, kMaxParameters);
    return -1;
  }
  std::free(kernel->name);
  std::free(kernel->kinds);
  kernel->name = strdup(name);
  kernel->kinds = strdup(kinds);
  if (!kernel->name || !kernel->kinds) {
    PyErr_NoMemory();
    return -1;
  }
  kernel->launch = reinterpret_cast<LaunchFunction>(launch);
  kernel->module = reinterpret_cast<void *>(module);
  kernel->numParameters = static_cast<Py_ssize_t>(count);
  return 0;
}

void kernelDealloc(PyObject *self) {
  auto *kernel = reinterpret_cast<KernelObject *>(self);
  std::free(kernel->name);
  std::free(kernel->kinds);
  PyTypeObject *type = Py_TYPE(self);
  auto *freeSlot =
      reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  freeSlot(self);
  Py_DECREF(type);
}

/// The module is closed: launches after this report it (through Python).
PyObject *kernelClose(PyObject *self, PyObject *) {
  reinterpret_cast<KernelObject *>(self)->module = nullptr;
  Py_RETURN_NONE;
}

PyMethodDef kernelMethods[] = {
    {"close", kernelClose, METH_NOARGS,
     "Forgets the module: it has been closed."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot kernelSlots[] = {
    {Py_tp_doc, const_cast<char *>(
                    "Kernel(launch, module, name, kinds): a loaded kernel "
                    "that the fast path launches through the C API.")},
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void *>(kernelInit)},
    {Py_tp_dealloc, reinterpret_cast<void *>(kernelDealloc)},
    {Py_tp_methods, kernelMethods},
    {0, nullptr}};

PyType_Spec kernelSpec = {"kiln._launch.Kernel", sizeof(KernelObject), 0,
                          Py_TPFLAGS_DEFAULT, kernelSlots};

PyObject *kernelType = nullptr;

/// Launches `kernel` on `grid` with `values`; -1 with an exception set
/// where the module is closed or the launch fails (`launcher.fail` raises
/// what the full path would), or where the values do not fit the
/// parameters (which registration rules out).
int launchKernel(KernelObject *kernel, PyObject *launcher,
                 const unsigned grid[3], const Value *values,
                 Py_ssize_t numValues, uint64_t stream) {
  if (numValues != kernel->numParameters) {
    PyErr_SetString(PyExc_SystemError,
                    "kiln: a launch key's values do not match its kernel");
    return -1;
  }
  uint64_t slots[kMaxParameters];
  void *pointers[kMaxParameters];
  for (Py_ssize_t i = 0; i < numValues; ++i) {
    const Value &value = values[i];
    char kind = kernel->kinds[i];
    void *slot = &slots[i];
    pointers[i] = slot;
    if (kind == 'p' && value.kind == Value::Pointer)
      *static_cast<uint64_t *>(slot) = value.address;
    else if (kind == 'b' && value.kind == Value::Bool)
      *static_cast<bool *>(slot) = value.flag;
    else if (kind == 'i' && value.kind == Value::Integer)
      *static_cast<int32_t *>(slot) = static_cast<int32_t>(value.integer);
    else if (kind == 'l' && value.kind == Value::Integer)
      *static_cast<int64_t *>(slot) = value.integer;
    else if (kind == 'f' && value.kind == Value::Float)
      *static_cast<float *>(slot) = static_cast<float>(value.real);
    else {
      PyErr_SetString(PyExc_SystemError,
                      "kiln: a launch key's values do not match its kernel");
      return -1;
    }
  }
  // A grid with a zero size runs nothing (after the check that the
  // module is open, as CudaModule.launch does).
  bool empty = grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
  void *error = nullptr;
  if (kernel->module && !empty)
    error = kernel->launch(kernel->module, kernel->name, grid, pointers,
                           static_cast<size_t>(numValues), stream);
  if (kernel->module && !error)
    return 0;
  PyObject *address = PyLong_FromVoidPtr(error);
  if (!address)
    return -1;
  PyObject *result =
      PyObject_CallMethodObjArgs(launcher, config.fail, address, nullptr);
  Py_DECREF(address);
  Py_XDECREF(result);
  if (!PyErr_Occurred())
    PyErr_SetString(PyExc_SystemError, "kiln: a failed launch raised nothing");
  return -1;
}

//===----------------------------------------------------------------------===//
// Reading arguments.
//===----------------------------------------------------------------------===//

/// 1 and the token of `value`'s integer type (as JITFunction.specialize
/// gives it) in `share`; 0 where the full path must look.
int readInteger(PyObject *value, bool specialize, PyObject **share,
                Value *read) {
  int overflow = 0;
  long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow)
    return 0; // uint64 or no type: the full path decides
  if (number == -1 && PyErr_Occurred())
    return -1;
  bool wide = number < -0x80000000LL || number > 0x7fffffffLL;
  int variant = !specialize ? 0 : number == 1 ? 2 : number % 16 == 0 ? 1 : 0;
  *share = config.integerTokens[(wide ? 3 : 0) + variant];
  Py_INCREF(*share);
  read->kind = Value::Integer;
  read->integer = number;
  return 1;
}

/// Whether the pending exception is one that means "not readable here"
/// (a type whose objects differ, a tensor with no address); clears it.
bool clearUnreadable() {
  if (!PyErr_ExceptionMatches(PyExc_AttributeError) &&
      !PyErr_ExceptionMatches(PyExc_RuntimeError))
    return false;
  PyErr_Clear();
  return true;
}

/// `value`'s truth, or -1.
int attributeTruth(PyObject *value, PyObject *name) {
  PyObject *attribute = PyObject_GetAttr(value, name);
  if (!attribute)
    return -1;
  int truth = PyObject_IsTrue(attribute);
  Py_DECREF(attribute);
  return truth;
}

/// The integer a method of `value` returns, or -1 with an exception set.
long long methodInteger(PyObject *value, PyObject *name, bool *failed) {
  PyObject *result = PyObject_CallMethodObjArgs(value, name, nullptr);
  if (!result) {
    *failed = true;
    return -1;
  }
  long long number = PyLong_AsLongLong(result);
  Py_DECREF(result);
  *failed = number == -1 && PyErr_Occurred();
  return number;
}

/// A PyTorch tensor's share and address, as kiln.launch_keys describes
/// (one that needs grad too: its data is read as Triton reads it): the
/// full path takes a CPU tensor and an empty one.
int readTensor(PyObject *value, bool specialize, PyObject **share,
               Value *read) {
  int onGpu = attributeTruth(value, config.isCuda);
  if (onGpu <= 0)
    return onGpu;
  bool failed = false;
  long long elements = methodInteger(value, config.numel, &failed);
  if (failed || elements == 0)
    return failed ? -1 : 0;
  PyObject *dtype = PyObject_GetAttr(value, config.dtype);
  if (!dtype)
    return -1;
  // Held until read: the calls below run Python code, in which another
  // thread may replace the dictionary's entry.
  PyObject *tokens = PyDict_GetItemWithError(config.dtypeTokens, dtype);
  Py_XINCREF(tokens);
  if (!tokens &&
      (PyErr_Occurred() ||
       !(tokens = PyObject_CallFunctionObjArgs(config.pointerTokens, value,
                                               nullptr)) ||
       PyDict_SetItem(config.dtypeTokens, dtype, tokens) < 0)) {
    Py_XDECREF(tokens);
    Py_DECREF(dtype);
    return -1;
  }
  Py_DECREF(dtype);
  if (tokens == Py_None) { // a dtype kernels do not take: the full path
    Py_DECREF(tokens);
    return 0;
  }
  PyObject *result = PyObject_CallMethodObjArgs(value, config.dataPtr, nullptr);
  unsigned long long address =
      result ? PyLong_AsUnsignedLongLong(result) : 0;
  Py_XDECREF(result);
  long long ordinal =
      PyErr_Occurred() ? 0 : methodInteger(value, config.getDevice, &failed);
  PyObject *token =
      PyErr_Occurred()
          ? nullptr
          : PyTuple_GetItem(tokens, specialize && address % 16 == 0 ? 1 : 0);
  Py_XINCREF(token);
  Py_DECREF(tokens);
  if (!token)
    return -1;
  // On a GPU other than 0 the share names it (launch_keys.on_device).
  if (ordinal == 0) {
    *share = token;
  } else {
    *share = Py_BuildValue("(OL)", token, ordinal);
    Py_DECREF(token);
    if (!*share)
      return -1;
  }
  read->kind = Value::Pointer;
  read->address = address;
  return 1;
}

/// 1 with the share and value of a launch argument; 0 where the full path
/// must look; -1 with an exception set.
int readArgument(PyObject *value, bool specialize, PyObject **share,
                 Value *read) {
  if (PyBool_Check(value)) {
    *share = config.i1Token;
    Py_INCREF(*share);
    read->kind = Value::Bool;
    read->flag = value == Py_True;
    return 1;
  }
  if (PyLong_CheckExact(value))
    return readInteger(value, specialize, share, read);
  if (PyFloat_CheckExact(value)) {
    *share = config.f32Token;
    Py_INCREF(*share);
    read->kind = Value::Float;
    read->real = PyFloat_AsDouble(value);
    return 1;
  }
  auto *type = reinterpret_cast<PyObject *>(Py_TYPE(value));
  PyObject *kind = PyDict_GetItemWithError(config.kinds, type);
  if (!kind) {
    if (PyErr_Occurred() ||
        !(kind = PyObject_CallFunctionObjArgs(config.classify, value,
                                              nullptr)) ||
        PyDict_SetItem(config.kinds, type, kind) < 0) {
      Py_XDECREF(kind);
      return -1;
    }
    Py_DECREF(kind); // the dictionary holds it
  }
  long which = PyLong_AsLong(kind);
  if (which == -1 && PyErr_Occurred())
    return -1;
  int found = 0;
  if (which == 1) {
    found = readTensor(value, specialize, share, read);
  } else if (which == 2) {
    PyObject *reading = PyObject_CallFunctionObjArgs(
        config.readArgument, value, specialize ? Py_True : Py_False, nullptr);
    if (!reading)
      return -1;
    unsigned long long address = 0;
    if (reading != Py_None &&
        !PyArg_ParseTuple(reading, "OK", share, &address)) {
      Py_DECREF(reading);
      return -1;
    }
    if (reading != Py_None) {
      Py_INCREF(*share);
      read->kind = Value::Pointer;
      read->address = address;
      found = 1;
    }
    Py_DECREF(reading);
  }
  if (found < 0 && clearUnreadable())
    return 0;
  return found;
}

/// A constexpr's share of the key: (type, value) for the common immutable
/// values, launch_keys.constant_key for the rest.
PyObject *constantShare(PyObject *value) {
  if (PyLong_CheckExact(value) || PyBool_Check(value) || value == Py_None ||
      PyUnicode_CheckExact(value))
    return Py_BuildValue("(OO)", reinterpret_cast<PyObject *>(Py_TYPE(value)),
                         value);
  return PyObject_CallFunctionObjArgs(config.constantKey, value, nullptr);
}

//===----------------------------------------------------------------------===//
// Dispatcher: a JITFunction's launch keys and launchers.
//===----------------------------------------------------------------------===//

/// What each parameter is (Dispatcher's `flags`).
enum ParameterFlag : char { Specialized = 's', Plain = 'n', Constexpr = 'c' };

struct DispatcherObject {
  PyObject_HEAD
  PyObject *function;     // the JITFunction (interpret, _debug)
  PyObject *names;        // tuple of parameter names
  char *flags;            // one ParameterFlag per parameter
  PyObject *defaults;     // name -> default
  PyObject *launchers;    // key -> (Kernel, ordinal, KernelLauncher)
  PyObject *globalsRead;  // non-empty: checkGlobals before each launch
  PyObject *checkGlobals; // recompiles where a global compiled in changed
  PyObject *run;          // the full path: run(*args, grid=, **kwargs)
  PyObject *options;      // launch option name -> default, in key order
  bool optionsAreParameters;
};

/// A launch's arguments as read: the key, each non-constexpr argument's
/// value, and every argument in parameter order (borrowed).
struct Reading {
  PyObject *key = nullptr;
  Value values[kMaxParameters];
  Py_ssize_t numValues = 0;
  PyObject *arguments[kMaxParameters];
  ~Reading() { Py_XDECREF(key); }
};

/// A launch option's share of the key (a new reference): its default where
/// not given or None, else what was given; null where the full path must
/// look (a value that is not a plain int or bool), or with an exception set.
PyObject *optionShare(PyObject *kwargs, PyObject *name, PyObject *fallback,
                      int *found) {
  PyObject *value = kwargs ? PyDict_GetItemWithError(kwargs, name) : nullptr;
  if (value)
    ++*found;
  else if (PyErr_Occurred())
    return nullptr;
  if (!value || value == Py_None)
    value = fallback;
  else if (!PyLong_CheckExact(value) && !PyBool_Check(value))
    return nullptr;
  Py_INCREF(value);
  return value;
}

/// Whether a launch runs in the interpreter, or compiles kl.device_assert:
/// the JITFunction's setting, else the environment's, `variable` or
/// `alias` (as its properties).
int setting(PyObject *function, PyObject *name, const char *variable,
            const char *alias = nullptr) {
  PyObject *value = PyObject_GetAttr(function, name);
  if (!value)
    return -1;
  int result = value == Py_None ? environmentFlag(variable) ||
                                      (alias && environmentFlag(alias))
                                : PyObject_IsTrue(value);
  Py_DECREF(value);
  return result;
}

/// Reads a launch: 1 with `reading` filled, 0 where the full path must
/// look, -1 with an exception set. The launch options are looked for in
/// `kwargs`, as `kernel[grid](..., num_warps=8)` passes them.
int readLaunch(DispatcherObject *self, PyObject *args, PyObject *kwargs,
               Reading &reading) {
  Py_ssize_t numNames = PyTuple_Size(self->names);
  Py_ssize_t numArgs = PyTuple_Size(args);
  Py_ssize_t numOptions = PyDict_Size(self->options);
  if (numArgs > numNames || numNames > kMaxParameters)
    return 0;
  PyObject *key = PyTuple_New(numOptions + 1 + numNames);
  if (!key)
    return -1;
  reading.key = key;
  int options = 0;
  Py_ssize_t position = 0;
  PyObject *name, *fallback;
  for (Py_ssize_t i = 0; PyDict_Next(self->options, &position, &name,
                                     &fallback);
       ++i) {
    PyObject *share = optionShare(kwargs, name, fallback, &options);
    if (!share)
      return PyErr_Occurred() ? -1 : 0;
    PyTuple_SetItem(key, i, share);
  }
  if (options && self->optionsAreParameters)
    return 0; // run() also passes them as the parameters: it sorts it out
  Py_ssize_t found = 0;
  for (Py_ssize_t i = 0; i < numNames; ++i) {
    if (i < numArgs) {
      reading.arguments[i] = PyTuple_GetItem(args, i);
      continue;
    }
    PyObject *name = PyTuple_GetItem(self->names, i);
    PyObject *value =
        kwargs ? PyDict_GetItemWithError(kwargs, name) : nullptr;
    if (value)
      ++found;
    else if (PyErr_Occurred() ||
             !(value = PyDict_GetItemWithError(self->defaults, name)))
      return PyErr_Occurred() ? -1 : 0; // missing: the full path says so
    reading.arguments[i] = value;
  }
  if (found + options != (kwargs ? PyDict_Size(kwargs) : 0))
    return 0; // an unknown keyword, or one also given by position
  int interpreted = setting(self->function, config.interpret,
                            "KILN_INTERPRET");
  if (interpreted != 0)
    return interpreted < 0 ? -1 : 0; // the interpreter runs it
  int debug =
      setting(self->function, config.debug, "KILN_DEBUG", "TRITON_DEBUG");
  if (debug < 0)
    return -1;
  PyObject *flag = debug ? Py_True : Py_False;
  Py_INCREF(flag);
  PyTuple_SetItem(key, numOptions, flag);
  for (Py_ssize_t i = 0; i < numNames; ++i) {
    PyObject *share = nullptr;
    if (self->flags[i] == Constexpr) {
      if (!(share = constantShare(reading.arguments[i])))
        return -1;
    } else {
      int read = readArgument(reading.arguments[i],
                              self->flags[i] == Specialized, &share,
                              &reading.values[reading.numValues++]);
      if (read <= 0)
        return read;
    }
    PyTuple_SetItem(key, numOptions + 1 + i, share);
  }
  return PyErr_Occurred() ? -1 : 1;
}

/// Reads one grid size; false where it is not a plain int in range.
bool gridSize(PyObject *size, unsigned *result) {
  if (!PyLong_CheckExact(size))
    return false;
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(size, &overflow);
  if (overflow || value < 0 || value > kMaxGrid)
    return false;
  *result = static_cast<unsigned>(value);
  return true;
}

/// The launch's grid in `sizes`: given, or computed by the grid function
/// from the arguments by name; what is not 1 to 3 plain ints is checked
/// (and normalized, or refused) by Python. -1 with an exception set.
int readGrid(DispatcherObject *self, PyObject *grid, const Reading &reading,
             unsigned sizes[3]) {
  PyObject *computed = nullptr;
  if (PyCallable_Check(grid)) {
    PyObject *meta = PyDict_New();
    if (!meta)
      return -1;
    Py_ssize_t numNames = PyTuple_Size(self->names);
    for (Py_ssize_t i = 0; i < numNames; ++i)
      if (PyDict_SetItem(meta, PyTuple_GetItem(self->names, i),
                         reading.arguments[i]) < 0) {
        Py_DECREF(meta);
        return -1;
      }
    computed = PyObject_CallFunctionObjArgs(grid, meta, nullptr);
    Py_DECREF(meta);
    if (!computed)
      return -1;
    grid = computed;
  }
  sizes[0] = sizes[1] = sizes[2] = 1;
  bool plain = false;
  if (PyLong_CheckExact(grid)) {
    plain = gridSize(grid, &sizes[0]);
  } else if (PyTuple_CheckExact(grid) || PyList_CheckExact(grid)) {
    Py_ssize_t rank = PySequence_Size(grid);
    plain = rank >= 1 && rank <= 3;
    for (Py_ssize_t i = 0; plain && i < rank; ++i) {
      PyObject *size = PySequence_GetItem(grid, i);
      plain = size && gridSize(size, &sizes[i]);
      Py_XDECREF(size);
    }
  }
  if (PyErr_Occurred())
    PyErr_Clear(); // an odd sequence: Python says what is wrong
  if (!plain) {
    PyObject *normalized =
        PyObject_CallFunctionObjArgs(config.normalizeGrid, grid, nullptr);
    Py_XDECREF(computed);
    if (!normalized)
      return -1;
    sizes[0] = sizes[1] = sizes[2] = 1;
    Py_ssize_t rank = PyTuple_Size(normalized);
    for (Py_ssize_t i = 0; i < rank && i < 3; ++i)
      if (!gridSize(PyTuple_GetItem(normalized, i), &sizes[i])) {
        Py_DECREF(normalized);
        PyErr_SetString(PyExc_SystemError,
                        "kiln: a checked grid is not plain ints");
        return -1;
      }
    Py_DECREF(normalized);
    return 0;
  }
  Py_XDECREF(computed);
  return 0;
}

/// The stream a launch goes to (kiln.gpu.current_stream): PyTorch's
/// current stream on the device where PyTorch is loaded, else 0.
int currentStream(long ordinal, uint64_t *stream) {
  *stream = 0;
  PyObject *torch =
      PyDict_GetItemWithError(PyImport_GetModuleDict(), config.torch);
  if (!torch)
    return PyErr_Occurred() ? -1 : 0;
  // The getter is kept once found for this torch module; until then (a
  // PyTorch without CUDA, or one still being imported) it is looked up on
  // each launch, as kiln.gpu.current_stream does.
  if (torch != config.torchModule || !config.getStream) {
    Py_CLEAR(config.getStream);
    Py_INCREF(torch);
    replace(&config.torchModule, torch);
    PyObject *c = PyObject_GetAttrString(torch, "_C");
    if (c) {
      config.getStream =
          PyObject_GetAttrString(c, "_cuda_getCurrentRawStream");
      Py_DECREF(c);
    }
    PyErr_Clear(); // no getter: the default stream
  }
  if (!config.getStream)
    return 0;
  PyObject *result = PyObject_CallFunction(config.getStream, "l", ordinal);
  if (!result) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError) ||
        PyErr_ExceptionMatches(PyExc_RuntimeError) ||
        PyErr_ExceptionMatches(PyExc_AssertionError)) {
      PyErr_Clear();
      return 0;
    }
    return -1;
  }
  *stream = PyLong_AsUnsignedLongLong(result);
  Py_DECREF(result);
  return PyErr_Occurred() ? -1 : 0;
}

/// The fast path: 1 where the launch ran (or a grid size is 0), 0 where
/// the full path must run it, -1 with an exception set.
int tryLaunch(DispatcherObject *self, PyObject *grid, PyObject *args,
              PyObject *kwargs) {
  if (!self->names) {
    PyErr_SetString(PyExc_TypeError, "kiln: an uninitialized Dispatcher");
    return -1;
  }
  if (PyObject_IsTrue(self->globalsRead)) {
    PyObject *checked = PyObject_CallNoArgs(self->checkGlobals);
    if (!checked)
      return -1;
    Py_DECREF(checked);
  }
  Reading reading;
  int read = readLaunch(self, args, kwargs, reading);
  if (read <= 0)
    return read;
  PyObject *entry = PyDict_GetItemWithError(self->launchers, reading.key);
  if (!entry)
    return PyErr_Occurred() ? -1 : 0;
  Py_INCREF(entry); // a grid function may clear the launchers
  PyObject *kernel = PyTuple_GetItem(entry, 0);
  PyObject *ordinal = PyTuple_GetItem(entry, 1);
  PyObject *launcher = PyTuple_GetItem(entry, 2);
  unsigned sizes[3];
  uint64_t stream = 0;
  int result = -1;
  if (kernel && ordinal && launcher &&
      PyObject_IsInstance(kernel, kernelType) == 1 &&
      readGrid(self, grid, reading, sizes) == 0) {
    long device = PyLong_AsLong(ordinal);
    if (!PyErr_Occurred() && currentStream(device, &stream) == 0) {
      result = launchKernel(reinterpret_cast<KernelObject *>(kernel),
                            launcher, sizes, reading.values,
                            reading.numValues, stream) == 0
                   ? 1
                   : -1;
    }
  }
  if (result < 0 && !PyErr_Occurred())
    PyErr_SetString(PyExc_SystemError, "kiln: a malformed launcher entry");
  Py_DECREF(entry);
  return result;
}

int dispatcherInit(PyObject *self, PyObject *args, PyObject *) {
  auto *dispatcher = reinterpret_cast<DispatcherObject *>(self);
  PyObject *function, *names, *defaults, *launchers, *globalsRead,
      *checkGlobals, *run, *options;
  const char *flags;
  int optionsAreParameters;
  if (!PyArg_ParseTuple(args, "OO!sO!O!O!OOO!p", &function, &PyTuple_Type,
                        &names, &flags, &PyDict_Type, &defaults, &PyDict_Type,
                        &launchers, &PyDict_Type, &globalsRead, &checkGlobals,
                        &run, &PyDict_Type, &options, &optionsAreParameters))
    return -1;
  if (static_cast<Py_ssize_t>(std::strlen(flags)) != PyTuple_Size(names) ||
      std::strspn(flags, "snc") != std::strlen(flags)) {
    PyErr_SetString(PyExc_ValueError,
                    "flags must give s, n or c for each parameter");
    return -1;
  }
  char *copy = strdup(flags);
  if (!copy) {
    PyErr_NoMemory();
    return -1;
  }
  std::free(dispatcher->flags);
  dispatcher->flags = copy;
  // A copy: the key's layout must not change under it.
  options = PyDict_Copy(options);
  if (!options)
    return -1;
  PyObject *fields[] = {function,    names,        defaults, launchers,
                        globalsRead, checkGlobals, run};
  PyObject **slots[] = {&dispatcher->function,    &dispatcher->names,
                        &dispatcher->defaults,    &dispatcher->launchers,
                        &dispatcher->globalsRead, &dispatcher->checkGlobals,
                        &dispatcher->run};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
    Py_INCREF(fields[i]);
    replace(slots[i], fields[i]);
  }
  replace(&dispatcher->options, options);
  dispatcher->optionsAreParameters = optionsAreParameters;
  return 0;
}

int dispatcherTraverse(PyObject *self, visitproc visit, void *arg) {
  auto *dispatcher = reinterpret_cast<DispatcherObject *>(self);
  Py_VISIT(dispatcher->function);
  Py_VISIT(dispatcher->names);
  Py_VISIT(dispatcher->defaults);
  Py_VISIT(dispatcher->launchers);
  Py_VISIT(dispatcher->globalsRead);
  Py_VISIT(dispatcher->checkGlobals);
  Py_VISIT(dispatcher->run);
  Py_VISIT(dispatcher->options);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int dispatcherClear(PyObject *self) {
  auto *dispatcher = reinterpret_cast<DispatcherObject *>(self);
  Py_CLEAR(dispatcher->function);
  Py_CLEAR(dispatcher->names);
  Py_CLEAR(dispatcher->defaults);
  Py_CLEAR(dispatcher->launchers);
  Py_CLEAR(dispatcher->globalsRead);
  Py_CLEAR(dispatcher->checkGlobals);
  Py_CLEAR(dispatcher->run);
  Py_CLEAR(dispatcher->options);
  return 0;
}

void dispatcherDealloc(PyObject *self) {
  PyObject_GC_UnTrack(self);
  dispatcherClear(self);
  std::free(reinterpret_cast<DispatcherObject *>(self)->flags);
  PyTypeObject *type = Py_TYPE(self);
  auto *freeSlot =
      reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  freeSlot(self);
  Py_DECREF(type);
}

/// launch(grid, args, kwargs) -> whether it ran.
PyObject *dispatcherLaunch(PyObject *self, PyObject *args) {
  PyObject *grid, *arguments, *kwargs;
  if (!PyArg_ParseTuple(args, "OO!O!", &grid, &PyTuple_Type, &arguments,
                        &PyDict_Type, &kwargs))
    return nullptr;
  int launched = tryLaunch(reinterpret_cast<DispatcherObject *>(self), grid,
                           arguments, kwargs);
  if (launched < 0)
    return nullptr;
  return PyBool_FromLong(launched);
}

/// read(args, kwargs) -> (key, values) or None: what a launch with these
/// arguments is looked up by, and what it passes.
PyObject *dispatcherRead(PyObject *self, PyObject *args) {
  PyObject *arguments, *kwargs;
  if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &arguments,
                        &PyDict_Type, &kwargs))
    return nullptr;
  auto *dispatcher = reinterpret_cast<DispatcherObject *>(self);
  if (!dispatcher->names) {
    PyErr_SetString(PyExc_TypeError, "kiln: an uninitialized Dispatcher");
    return nullptr;
  }
  Reading reading;
  int read = readLaunch(dispatcher, arguments, kwargs, reading);
  if (read < 0)
    return nullptr;
  if (read == 0)
    Py_RETURN_NONE;
  PyObject *values = PyList_New(reading.numValues);
  if (!values)
    return nullptr;
  for (Py_ssize_t i = 0; i < reading.numValues; ++i) {
    const Value &value = reading.values[i];
    PyObject *item = nullptr;
    switch (value.kind) {
    case Value::Pointer:
      item = PyLong_FromUnsignedLongLong(value.address);
      break;
    case Value::Integer:
      item = PyLong_FromLongLong(value.integer);
      break;
    case Value::Float:
      item = PyFloat_FromDouble(value.real);
      break;
    case Value::Bool:
      item = PyBool_FromLong(value.flag);
      break;
    }
    if (!item) {
      Py_DECREF(values);
      return nullptr;
    }
    PyList_SetItem(values, i, item);
  }
  return Py_BuildValue("(ON)", reading.key, values);
}

PyObject *dispatcherType = nullptr, *boundType = nullptr;

/// bind(grid) -> what kernel[grid] returns.
PyObject *dispatcherBind(PyObject *self, PyObject *grid) {
  return PyObject_CallFunctionObjArgs(boundType, self, grid, nullptr);
}

PyMethodDef dispatcherMethods[] = {
    {"launch", dispatcherLaunch, METH_VARARGS,
     "launch(grid, args, kwargs) -> bool: launches where the key is "
     "registered."},
    {"read", dispatcherRead, METH_VARARGS,
     "read(args, kwargs) -> (key, values) or None."},
    {"bind", dispatcherBind, METH_O,
     "bind(grid) -> a callable that launches on grid."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot dispatcherSlots[] = {
    {Py_tp_doc,
     const_cast<char *>(
         "Dispatcher(function, names, flags, defaults, launchers, "
         "globals_read, check_globals, run, options, "
         "options_are_parameters): a kernel's cache-hit launches; options "
         "maps each launch option to its default.")},
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void *>(dispatcherInit)},
    {Py_tp_dealloc, reinterpret_cast<void *>(dispatcherDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(dispatcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(dispatcherClear)},
    {Py_tp_methods, dispatcherMethods},
    {0, nullptr}};

PyType_Spec dispatcherSpec = {"kiln._launch.Dispatcher",
                              sizeof(DispatcherObject), 0,
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                              dispatcherSlots};

//===----------------------------------------------------------------------===//
// Bound: kernel[grid].
//===----------------------------------------------------------------------===//

struct BoundObject {
  PyObject_HEAD
  PyObject *dispatcher;
  PyObject *grid;
};

int boundInit(PyObject *self, PyObject *args, PyObject *) {
  auto *bound = reinterpret_cast<BoundObject *>(self);
  PyObject *dispatcher, *grid;
  if (!PyArg_ParseTuple(args, "O!O", dispatcherType, &dispatcher, &grid))
    return -1;
  Py_INCREF(dispatcher);
  Py_INCREF(grid);
  replace(&bound->dispatcher, dispatcher);
  replace(&bound->grid, grid);
  return 0;
}

/// The launch: the fast path, else the full path (run(*args, grid=grid,
/// **kwargs)), which calls no frame of Kiln's above the user's.
PyObject *boundCall(PyObject *self, PyObject *args, PyObject *kwargs) {
  auto *bound = reinterpret_cast<BoundObject *>(self);
  if (!bound->dispatcher) {
    PyErr_SetString(PyExc_TypeError, "kiln: an uninitialized Bound");
    return nullptr;
  }
  auto *dispatcher = reinterpret_cast<DispatcherObject *>(bound->dispatcher);
  int launched = tryLaunch(dispatcher, bound->grid, args, kwargs);
  if (launched < 0)
    return nullptr;
  if (launched)
    Py_RETURN_NONE;
  PyObject *keywords = kwargs ? PyDict_Copy(kwargs) : PyDict_New();
  if (!keywords || PyDict_SetItem(keywords, config.grid, bound->grid) < 0) {
    Py_XDECREF(keywords);
    return nullptr;
  }
  PyObject *result = PyObject_Call(dispatcher->run, args, keywords);
  Py_DECREF(keywords);
  return result;
}

int boundTraverse(PyObject *self, visitproc visit, void *arg) {
  auto *bound = reinterpret_cast<BoundObject *>(self);
  Py_VISIT(bound->dispatcher);
  Py_VISIT(bound->grid);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int boundClear(PyObject *self) {
  auto *bound = reinterpret_cast<BoundObject *>(self);
  Py_CLEAR(bound->dispatcher);
  Py_CLEAR(bound->grid);
  return 0;
}

void boundDealloc(PyObject *self) {
  PyObject_GC_UnTrack(self);
  boundClear(self);
  PyTypeObject *type = Py_TYPE(self);
  auto *freeSlot =
      reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  freeSlot(self);
  Py_DECREF(type);
}

PyType_Slot boundSlots[] = {
    {Py_tp_doc, const_cast<char *>("A kernel bound to a grid: kernel[grid].")},
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void *>(boundInit)},
    {Py_tp_call, reinterpret_cast<void *>(boundCall)},
    {Py_tp_dealloc, reinterpret_cast<void *>(boundDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(boundTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(boundClear)},
    {0, nullptr}};

PyType_Spec boundSpec = {"kiln._launch.Bound", sizeof(BoundObject), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, boundSlots};

//===----------------------------------------------------------------------===//
// The module.
//===----------------------------------------------------------------------===//

/// configure(integer_tokens, f32, i1, classify, read_argument,
/// pointer_tokens, constant_key, normalize_grid): once, from
/// kiln.launch_keys.
PyObject *configure(PyObject *, PyObject *args) {
  PyObject *integers, *f32, *i1, *classify, *read, *pointers, *constant,
      *grid;
  if (!PyArg_ParseTuple(args, "O!OOOOOOO", &PyTuple_Type, &integers, &f32,
                        &i1, &classify, &read, &pointers, &constant, &grid))
    return nullptr;
  if (PyTuple_Size(integers) != 6) {
    PyErr_SetString(PyExc_ValueError, "integer_tokens must have 6 tokens");
    return nullptr;
  }
  for (int i = 0; i < 6; ++i) {
    PyObject *token = PyTuple_GetItem(integers, i);
    Py_INCREF(token);
    replace(&config.integerTokens[i], token);
  }
  PyObject *fields[] = {f32, i1, classify, read, pointers, constant, grid};
  PyObject **slots[] = {&config.f32Token,      &config.i1Token,
                        &config.classify,      &config.readArgument,
                        &config.pointerTokens, &config.constantKey,
                        &config.normalizeGrid};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
    Py_INCREF(fields[i]);
    replace(slots[i], fields[i]);
  }
  PyDict_Clear(config.kinds);
  PyDict_Clear(config.dtypeTokens);
  Py_RETURN_NONE;
}

PyMethodDef moduleMethods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(integer_tokens, f32, i1, classify, read_argument, "
     "pointer_tokens, constant_key, normalize_grid)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT,
                         "_launch",
                         "@kiln.jit's cache-hit launch path, in C.",
                         -1,
                         moduleMethods,
                         nullptr,
                         nullptr,
                         nullptr,
                         nullptr};

bool addType(PyObject *module, PyType_Spec *spec, const char *name,
             PyObject **type) {
  *type = PyType_FromSpec(spec);
  if (!*type)
    return false;
  Py_INCREF(*type); // the module's reference; ours stays
  if (PyModule_AddObject(module, name, *type) < 0) {
    Py_DECREF(*type);
    return false;
  }
  return true;
}

bool intern(PyObject **slot, const char *text) {
  *slot = PyUnicode_InternFromString(text);
  return *slot != nullptr;
}

} // namespace

PyMODINIT_FUNC PyInit__launch() {
  PyObject *module = PyModule_Create(&moduleDef);
  if (!module)
    return nullptr;
  if (!(config.kinds = PyDict_New()) || !(config.dtypeTokens = PyDict_New()) ||
      !intern(&config.isCuda, "is_cuda") || !intern(&config.numel, "numel") ||
      !intern(&config.dataPtr, "data_ptr") ||
      !intern(&config.getDevice, "get_device") ||
      !intern(&config.dtype, "dtype") ||
      !intern(&config.interpret, "interpret") ||
      !intern(&config.debug, "_debug") ||
      !intern(&config.grid, "grid") || !intern(&config.fail, "fail") ||
      !intern(&config.torch, "torch") ||
      !addType(module, &kernelSpec, "Kernel", &kernelType) ||
      !addType(module, &dispatcherSpec, "Dispatcher", &dispatcherType) ||
      !addType(module, &boundSpec, "Bound", &boundType)) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
