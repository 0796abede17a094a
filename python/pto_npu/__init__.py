# SPDX-License-Identifier: MIT
"""pto_npu: Python over libpto (ctypes; pure Python, nothing to build).

The device layer (pto_npu.device) is the binding the language front end
(issue #32: pto_npu.language, pto_npu.runtime) is built on.
"""

from .device import Device, DeviceError, Tensor  # noqa: F401
