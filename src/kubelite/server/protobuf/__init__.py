"""Reading Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf) as JSON dicts."""
from kubelite.server.protobuf.decode import decode_body, message_name
from kubelite.server.protobuf.envelope import MAGIC, MEDIA_TYPE, has_magic, parse_envelope
from kubelite.server.protobuf.wire import ProtobufError

__all__ = ["MAGIC", "MEDIA_TYPE", "ProtobufError", "decode_body", "has_magic", "message_name",
           "parse_envelope"]
