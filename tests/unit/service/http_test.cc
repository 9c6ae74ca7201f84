// The HTTP/1.1 subset: request heads (good, malformed, oversized), query decoding,
// strict number parameters, the client's response decoder (chunked, split anywhere),
// and random garbage that must only ever produce an error.
#include <gtest/gtest.h>

#include <random>

#include "daemon/service/http.h"

namespace gotraced::service::http {
namespace {

Request Parse(std::string_view head) {
  Request r;
  ParseError e;
  EXPECT_TRUE(ParseRequestHead(head, &r, &e)) << e.reason << " in " << head;
  return r;
}

int Status(std::string_view head) {
  Request r;
  ParseError e;
  if (ParseRequestHead(head, &r, &e)) return 200;
  return e.status;
}

TEST(Http, ParsesCurlRequest) {
  Request r = Parse("GET /flight?pid=123&wait=0 HTTP/1.1\r\nHost: gotraced\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n");
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/flight");
  EXPECT_EQ(r.Param("pid"), "123");
  EXPECT_EQ(r.Param("wait"), "0");
  EXPECT_EQ(r.Header("host"), "gotraced");
  EXPECT_EQ(r.Header("user-agent"), "curl/7.88.1");
  EXPECT_EQ(r.minor_version, 1);
}

TEST(Http, DecodesEscapesAndAcceptsBareLf) {
  Request r = Parse("GET /pro%63esses?a=b%20c&d=e+f&&flag HTTP/1.0\n\n");
  EXPECT_EQ(r.path, "/processes");
  EXPECT_EQ(r.Param("a"), "b c");
  EXPECT_EQ(r.Param("d"), "e f");
  EXPECT_EQ(r.Param("flag"), "");
  EXPECT_EQ(r.minor_version, 0);
}

TEST(Http, AbsoluteFormTarget) {
  EXPECT_EQ(Parse("GET http://gotraced/metrics HTTP/1.1\r\nHost: x\r\n\r\n").path, "/metrics");
}

TEST(Http, FindHeadEnd) {
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nHost: x\r\n"), 0u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\n\r\nrest"), 18u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.0\n\nrest"), 16u);
}

TEST(Http, Rejections) {
  EXPECT_EQ(Status("\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET  / HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("G(T / HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/2.0\r\nHost: x\r\n\r\n"), 505);
  EXPECT_EQ(Status("GET / HTTX/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\n\r\n"), 400);  // no Host
  EXPECT_EQ(Status("GET x HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /%0 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /%00 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /?a=%4 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHo st: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\x01y\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"), 413);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), 200);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /\x7f HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(Status("GET /" + std::string(5000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414);
  std::string many = "GET / HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 100; i++) many += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(Status(many + "\r\n"), 431);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nHost: " + std::string(kMaxHeadBytes, 'h') + "\r\n\r\n"), 431);
  std::string params = "GET /?";
  for (int i = 0; i < 40; i++) params += "a=1&";
  EXPECT_EQ(Status(params + " HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
}

TEST(Http, StrictNumbers) {
  EXPECT_EQ(ParseInt("123", 1, 1000), 123);
  EXPECT_FALSE(ParseInt("", 0, 10));
  EXPECT_FALSE(ParseInt("-1", -5, 10));
  EXPECT_FALSE(ParseInt("+1", 0, 10));
  EXPECT_FALSE(ParseInt(" 1", 0, 10));
  EXPECT_FALSE(ParseInt("1x", 0, 10));
  EXPECT_FALSE(ParseInt("0x10", 0, 100));
  EXPECT_FALSE(ParseInt("99999999999999999999", 0, INT64_MAX));
  EXPECT_FALSE(ParseInt("11", 0, 10));
  EXPECT_EQ(ParseSeconds("2.5", 10), 2.5);
  EXPECT_EQ(ParseSeconds("10", 10), 10);
  EXPECT_FALSE(ParseSeconds("0", 10));
  EXPECT_FALSE(ParseSeconds("11", 10));
  EXPECT_FALSE(ParseSeconds("1e3", 1e9));
  EXPECT_FALSE(ParseSeconds("nan", 10));
  EXPECT_FALSE(ParseSeconds(".5", 10));
  EXPECT_FALSE(ParseSeconds("1.", 10));
  EXPECT_FALSE(ParseSeconds("1..2", 10));
  EXPECT_FALSE(ParseSeconds("-1", 10));
}

std::string DecodeAll(std::string_view wire, std::size_t step, ResponseParser::State *state, int *status) {
  ResponseParser p;
  std::string body;
  for (std::size_t i = 0; i < wire.size(); i += step)
    p.Feed(wire.substr(i, step), [&](std::string_view b) { body.append(b); });
  if (p.state() == ResponseParser::State::kBody || p.state() == ResponseParser::State::kHead) p.Eof();
  *state = p.state();
  *status = p.status();
  return body;
}

TEST(Http, ResponseParserChunkedSplitAnywhere) {
  std::string wire = ResponseHead(200, "application/octet-stream", -1);
  std::string expect;
  for (int i = 0; i < 5; i++) {
    std::string chunk(static_cast<std::size_t>(1 + i * 37), static_cast<char>('a' + i));
    wire += ChunkHeader(chunk.size()) + chunk + std::string(kChunkTrailer);
    expect += chunk;
  }
  wire += kLastChunk;
  for (std::size_t step : {1, 2, 3, 7, 64, 4096}) {
    ResponseParser::State st;
    int status;
    EXPECT_EQ(DecodeAll(wire, step, &st, &status), expect) << "step " << step;
    EXPECT_EQ(st, ResponseParser::State::kDone);
    EXPECT_EQ(status, 200);
  }
}

TEST(Http, ResponseParserContentLengthAndTruncation) {
  std::string wire = ResponseHead(403, "text/plain", 10) + "forbidden\n";
  ResponseParser::State st;
  int status;
  EXPECT_EQ(DecodeAll(wire, 3, &st, &status), "forbidden\n");
  EXPECT_EQ(st, ResponseParser::State::kDone);
  EXPECT_EQ(status, 403);
  // A chunked stream cut before its last chunk is an error, never a silent short file.
  std::string cut = ResponseHead(200, "x", -1) + ChunkHeader(4) + "abcd\r\n";
  DecodeAll(cut, 5, &st, &status);
  EXPECT_EQ(st, ResponseParser::State::kError);
}

TEST(Http, ResponseHeadFormat) {
  std::string h = ResponseHead(404, "text/plain", 3, {{"X-A", "b"}});
  EXPECT_EQ(h.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_NE(h.find("Content-Length: 3\r\n"), std::string::npos);
  EXPECT_NE(h.find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(h.find("X-A: b\r\n"), std::string::npos);
  EXPECT_EQ(h.substr(h.size() - 4), "\r\n\r\n");
  EXPECT_NE(ResponseHead(200, "x", -1).find("Transfer-Encoding: chunked"), std::string::npos);
}

// Garbage in: an answer or an error, never a crash (the libFuzzer target in
// tests/fuzz-service goes further).
TEST(Http, RandomGarbage) {
  std::mt19937 rng(1234);
  const std::string alphabet = "GET /?&=%+:\r\n HTP1.0xzAZ\x00\x7f\xff\t";
  for (int i = 0; i < 20000; i++) {
    std::string s;
    std::size_t n = rng() % 300;
    for (std::size_t j = 0; j < n; j++) s += (rng() % 4 == 0) ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
    if (i % 3 == 0) s = "GET /" + s;
    Request r;
    ParseError e;
    bool ok = ParseRequestHead(s, &r, &e);
    if (!ok) {
      EXPECT_GE(e.status, 400);
    }
    ResponseParser p;
    p.Feed(s, [](std::string_view) {});
    p.Eof();
  }
}

}  // namespace
}  // namespace gotraced::service::http
