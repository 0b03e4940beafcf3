// Cache paths and the attach protocol parser (no server).
#include <gtest/gtest.h>

#include "base/remote/RemoteAttach.h"
#include "base/remote/RemoteCache.h"
#include "base/remote/RemoteError.h"

using namespace streetgan;

TEST(RemoteCache, PathsAreKeyedByHostAndRemotePathAndCannotEscape) {
    const RemoteCache c("/cache/");
    EXPECT_EQ(c.root(), "/cache");
    EXPECT_EQ(RemoteCache::hostKey("gpu.example", 22), "gpu.example");
    EXPECT_EQ(RemoteCache::hostKey("127.0.0.1", 2222), "127.0.0.1_2222");
    EXPECT_EQ(c.pathFor("h", "/srv/runs/a/checkpoints/checkpoint_3.pt"), "/cache/h/srv/runs/a/checkpoints/checkpoint_3.pt");
    EXPECT_EQ(c.pathFor("h", "runs/a/x.pt"), "/cache/h/~/runs/a/x.pt");
    EXPECT_EQ(c.pathFor("h", "/a/../../etc/passwd"), "/cache/h/a/%2E%2E/%2E%2E/etc/passwd");
    EXPECT_EQ(c.pathFor("h", "/a/./b//c"), "/cache/h/a/b/c");
}

TEST(RemoteAttachProtocol, ParsesEveryLineKind) {
    auto m = RemoteAttach::parseLine(R"({"offset":10,"end":52,"event":{"step":5,"t":1.5}})");
    EXPECT_EQ(m.kind, AttachMessage::Kind::Event);
    EXPECT_EQ(m.offset, 10u);
    EXPECT_EQ(m.end, 52u);
    EXPECT_EQ(m.body["step"], 5);
    m = RemoteAttach::parseLine(R"({"live":true,"offset":52,"state":"running"})");
    EXPECT_EQ(m.kind, AttachMessage::Kind::Live);
    EXPECT_EQ(m.state, "running");
    m = RemoteAttach::parseLine(R"({"reply":{"ok":true,"cmd":"pause"}})");
    EXPECT_EQ(m.kind, AttachMessage::Kind::Reply);
    EXPECT_EQ(m.body["cmd"], "pause");
    m = RemoteAttach::parseLine(R"({"end":true,"offset":99,"state":"finished"})");
    EXPECT_EQ(m.kind, AttachMessage::Kind::End);
    EXPECT_EQ(m.offset, 99u);
    EXPECT_THROW(RemoteAttach::parseLine("not json"), RemoteError);
    EXPECT_THROW(RemoteAttach::parseLine(R"({"offset":-1,"end":3,"event":{}})"), RemoteError);
    EXPECT_THROW(RemoteAttach::parseLine(R"({"something":"else"})"), RemoteError);
}
