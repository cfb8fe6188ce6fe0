"""moto's S3 server on loopback, in this process, with a fault proxy in front of it: the store
of the object-storage tests (run_objstore_test.py) and benchmark (bench/objstore)."""

from __future__ import annotations

import logging
import socket

from s3_fault_proxy import FaultProxy


class LocalS3:
    """Starts moto on a free loopback port with `bucket` created, and a FaultProxy before it.

    `endpoint` reaches moto directly, `proxied_endpoint` through the proxy; use as a context
    manager, which stops both."""

    def __init__(self, bucket: str, access_key: str, secret_key: str):
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto logs every request
        from moto.server import ThreadedMotoServer
        import boto3

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        self.server.start()
        self.proxy = FaultProxy(port).start()
        self.endpoint = f"http://127.0.0.1:{port}"
        self.proxied_endpoint = f"http://127.0.0.1:{self.proxy.port}"
        self.client = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=access_key,
                                   aws_secret_access_key=secret_key, region_name="us-east-1")
        self.client.create_bucket(Bucket=bucket)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proxy.stop()
        self.server.stop()
