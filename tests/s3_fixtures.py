"""A real S3 API on loopback for the object-storage tests: moto's server, in this process.

The endpoint and fake credentials go into the environment when pytest starts, before any test
starts Ray, so Ray workers (which inherit the environment of the cluster's start) reach the
same server through pyarrow exactly as they would reach a real bucket. The server itself only
starts when a test asks for `s3_bucket`.
"""

from __future__ import annotations

import os
import socket
import uuid

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pytest_configure(config):
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{_free_port()}"
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
    )


@pytest.fixture(scope="session")
def s3_server():
    """The endpoint URL of a moto S3 server that lives for the session."""
    from moto.server import ThreadedMotoServer

    endpoint = os.environ["AWS_ENDPOINT_URL"]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=int(endpoint.rsplit(":", 1)[1]), verbose=False)
    server.start()
    yield endpoint
    server.stop()


@pytest.fixture
def s3_bucket(s3_server) -> str:
    """`s3://<fresh bucket>`: one empty bucket per test."""
    import pyarrow.fs as pafs

    name = f"g2w-{uuid.uuid4().hex[:12]}"
    pafs.S3FileSystem(endpoint_override=s3_server, allow_bucket_creation=True).create_dir(name)
    return f"s3://{name}"
