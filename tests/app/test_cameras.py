"""The webcams' ids as OpenCV opens them, on each system (companion.app.cameras)."""

from companion.app.cameras import Camera, opencv_cameras

QT_DEVICES = [("\\\\?\\usb#vid_046d&pid_085b#global", "Logitech BRIO"), ("OBS-Camera-ID", "OBS Virtual Camera")]


def test_on_windows_and_macos_a_camera_is_opened_by_its_place_in_the_list():
    for platform in ("win32", "darwin"):
        assert opencv_cameras(QT_DEVICES, platform) == [Camera("0", "Logitech BRIO"), Camera("1", "OBS Virtual Camera")]


def test_on_linux_a_camera_is_opened_by_its_device_path():
    devices = [("/dev/video0", "Integrated Camera"), ("/dev/video2", "USB webcam")]
    assert opencv_cameras(devices, "linux") == [Camera(*device) for device in devices]
