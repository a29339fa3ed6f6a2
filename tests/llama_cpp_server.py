"""``python -m llama_cpp.server ARGS`` with llama.cpp's extra buffer types off (``use_extra_bufts``).

llama-cpp-python's default build is native (``-march=native``) and, on a CPU that reports AMX, runs
its AMX kernels; where the kernel does not grant AMX tile state (containers, some VMs) the first
decode faults in ``ggml_backend_amx_mul_mat``. llama-cpp-python 0.3.36 has no option for it, so
this wrapper sets the field in the default model parameters and runs the server: the plain CPU
kernels, the same replies. Usage: ``python tests/llama_cpp_server.py --model FILE.gguf ...``.
"""

from __future__ import annotations

import runpy
import sys


def main() -> None:
    """Turn the extra buffer types off in llama.cpp's default model parameters, then run the server
    with this script's arguments (imported here: pytest collects this file where llama-cpp-python
    is not installed)."""
    import llama_cpp
    import llama_cpp.llama

    default_params = llama_cpp.llama_model_default_params

    def params() -> object:  # a ctypes struct
        params = default_params()
        params.use_extra_bufts = False
        return params

    llama_cpp.llama_model_default_params = params
    llama_cpp.llama.llama_cpp.llama_model_default_params = params
    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
