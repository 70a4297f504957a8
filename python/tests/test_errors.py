"""The error classes: which class for which status, what they carry, and how they print."""

from __future__ import annotations

import json
import time
import unittest
from email.utils import formatdate

from svc_client import (
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SvcError,
    UnprocessableEntityError,
)
from svc_client.errors import error_from_response, retry_after_seconds


def body(code: str, message: str, param: object = None) -> bytes:
    error = {"message": message, "type": "x", "code": code}
    if param is not None:
        error["param"] = param
    return json.dumps({"detail": message, "error": error}).encode()


class ErrorFromResponseTest(unittest.TestCase):
    def test_picks_the_class_for_the_status(self) -> None:
        expected = {
            400: BadRequestError,
            401: AuthenticationError,
            403: PermissionDeniedError,
            404: NotFoundError,
            409: ConflictError,
            422: UnprocessableEntityError,
            429: RateLimitError,
            500: InternalServerError,
            503: InternalServerError,
            408: APIError,
            413: APIError,
        }
        for status, error_class in expected.items():
            error = error_from_response(status, body("c", "m"), {})
            self.assertIs(type(error), error_class, status)
            self.assertIsInstance(error, SvcError)

    def test_carries_the_servers_message_code_param_and_request_id(self) -> None:
        error = error_from_response(400, body("invalid_request", "body/name must be a string", "name"), {"X-Request-Id": "req-1"})
        self.assertEqual((error.status, error.code, error.param, error.request_id), (400, "invalid_request", "name", "req-1"))
        self.assertEqual(error.message, "body/name must be a string")
        self.assertEqual(error.body["error"]["code"], "invalid_request")
        self.assertEqual(error.headers["x-request-id"], "req-1")

    def test_a_body_that_is_not_the_error_shape(self) -> None:
        error = error_from_response(502, b"<html>Bad gateway</html>", {})
        self.assertEqual((error.code, error.message, error.body), (None, "HTTP 502", "<html>Bad gateway</html>"))
        self.assertEqual(str(error), "502 Bad Gateway: HTTP 502")
        self.assertEqual(error_from_response(500, b"", {}).body, None)

    def test_401_and_403_read_clearly(self) -> None:
        self.assertEqual(
            str(error_from_response(401, body("invalid_credentials", "Incorrect username or password"), {})),
            "401 Unauthorized (invalid_credentials): Incorrect username or password — log in again or check the API key",
        )
        self.assertEqual(
            str(error_from_response(403, body("permission_denied", "Missing permission: users:manage"), {})),
            "403 Forbidden (permission_denied): Missing permission: users:manage — ask an administrator for the permission, or use a key that holds it",
        )
        self.assertEqual(
            str(error_from_response(403, body("cannot_modify_self", "You cannot change your own account here"), {})),
            "403 Forbidden (cannot_modify_self): You cannot change your own account here",
        )

    def test_repr_names_the_class_and_fields(self) -> None:
        error = error_from_response(404, body("user_not_found", "User not found"), {"x-request-id": "r"})
        self.assertEqual(repr(error), "NotFoundError(status=404, code='user_not_found', message='User not found', request_id='r')")

    def test_rate_limit_carries_retry_after(self) -> None:
        error = error_from_response(429, body("rate_limited", "Too many"), {"Retry-After": "30"})
        assert isinstance(error, RateLimitError)
        self.assertEqual(error.retry_after, 30.0)
        self.assertIsNone(RateLimitError(429, None, {}).retry_after)

    def test_connection_errors_have_no_status(self) -> None:
        self.assertIsNone(APIConnectionError().status)
        timeout = APIConnectionTimeoutError(1.5)
        self.assertIsInstance(timeout, APIConnectionError)
        self.assertEqual((str(timeout), timeout.timeout, timeout.code), ("The svc server did not answer within 1.5 s", 1.5, None))


class RetryAfterTest(unittest.TestCase):
    def test_reads_milliseconds_first_then_seconds_then_a_date(self) -> None:
        self.assertEqual(retry_after_seconds({"retry-after-ms": "250", "Retry-After": "9"}), 0.25)
        self.assertEqual(retry_after_seconds({"Retry-After": "9"}), 9.0)
        self.assertEqual(retry_after_seconds({"Retry-After": "0"}), 0.0)
        in_a_minute = retry_after_seconds({"Retry-After": formatdate(time.time() + 60, usegmt=True)})
        assert in_a_minute is not None
        self.assertTrue(55 <= in_a_minute <= 61, in_a_minute)
        self.assertEqual(retry_after_seconds({"Retry-After": formatdate(time.time() - 60, usegmt=True)}), 0.0)

    def test_ignores_what_is_not_a_wait(self) -> None:
        for value in ("-1", "soon", "nan", "inf", ""):
            self.assertIsNone(retry_after_seconds({"Retry-After": value}), value)
        self.assertIsNone(retry_after_seconds({}))
        self.assertEqual(retry_after_seconds({"retry-after-ms": "x", "retry-after": "2"}), 2.0)
