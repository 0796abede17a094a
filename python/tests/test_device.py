# SPDX-License-Identifier: MIT
"""The device layer of pto_npu against the device (runs in the VM)."""

import errno

import numpy as np
import pytest

from pto_npu import Device, DeviceError


@pytest.fixture
def dev():
    with Device(0) as d:
        yield d


def test_topology(dev):
    info = dev.info()
    assert dev.path == "/dev/accel/accel0"
    assert info.clusters > 0
    assert info.aic_cores == info.clusters
    assert info.aiv_cores == 2 * info.clusters
    assert dev.available_cluster_count() == info.clusters
    assert dev.available_aiv_count() == info.aiv_cores
    assert info.aiv_ub_size > 0 and info.aic_l0c_size > 0


def test_limits(dev):
    lim = dev.limits()
    assert lim.max_block_num >= dev.available_aiv_count()
    assert lim.max_sq_slots & (lim.max_sq_slots - 1) == 0
    assert lim.max_insns > 0 and lim.max_tensor_args > 0


def test_no_such_device():
    with pytest.raises(DeviceError) as e:
        Device(99)
    assert e.value.errno == errno.ENOENT
    assert "pto_device_open(99)" in str(e.value)


def test_tensor_is_shared_gm_and_accounted(dev):
    before = dev.memory()
    t = dev.tensor((4, 8), np.float32)
    view = t.numpy()
    assert view.shape == (4, 8) and not view.any()
    view[:] = np.arange(32, dtype=np.float32).reshape(4, 8)
    again = t.numpy()
    assert np.array_equal(again, np.arange(32, dtype=np.float32).reshape(4, 8))
    during = dev.memory()
    assert during.context_buffers == before.context_buffers + 1
    assert during.context_bytes >= before.context_bytes + 4 * 8 * 4
    del view, again
    t.free()
    assert dev.memory().context_buffers == before.context_buffers


def test_bad_tensors(dev):
    with pytest.raises(TypeError, match="no float16 tensors"):
        dev.tensor((4,), np.float16)
    with pytest.raises(DeviceError) as e:
        dev.tensor((0, 4), np.float32)
    assert e.value.errno == errno.EINVAL
