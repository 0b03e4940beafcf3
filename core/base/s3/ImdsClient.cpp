#include "base/s3/ImdsClient.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "base/util/Errors.h"

namespace streetgan::s3 {

namespace {

// The token lives 6 hours (IMDS's maximum); a new one is taken whenever a request is refused.
const char* const kTokenTtl = "X-aws-ec2-metadata-token-ttl-seconds: 21600";
const char* const kRolePath = "/latest/meta-data/iam/security-credentials/";

std::chrono::system_clock::time_point parseIsoTime(const std::string& text, const std::string& what) {
    std::tm tm{};
    // "2026-11-30T12:00:00Z" (IMDS writes UTC with a Z).
    if (!strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
        throw ConfigError("the instance metadata service's " + what + " '" + text + "' is not an ISO 8601 time: check the instance's IMDS");
    return std::chrono::system_clock::from_time_t(timegm(&tm));
}

CurlSession::Request request(const std::string& method, const std::string& url) {
    CurlSession::Request r;
    r.method = method;
    r.url = url;
    r.connectTimeout = std::chrono::milliseconds(1000);
    r.totalTimeout = std::chrono::milliseconds(5000);
    return r;
}

}  // namespace

ImdsClient::ImdsClient(std::string endpoint) : endpoint_(std::move(endpoint)) {
    while (!endpoint_.empty() && endpoint_.back() == '/') endpoint_.pop_back();
}

std::string ImdsClient::endpointFor(const std::string& disabled, const std::string& endpoint) {
    if (disabled == "true" || !CurlSession::supported()) return "";
    return endpoint.empty() ? kDefaultEndpoint : endpoint;
}

bool ImdsClient::takeToken() {
    if (!token_.empty()) return true;
    auto put = request("PUT", endpoint_ + "/latest/api/token");
    put.headers.emplace_back(kTokenTtl);
    const auto answer = http_.perform(put);
    if (answer.status != 200) return false;  // no IMDS (or IMDSv2 off): not ours to use
    token_ = answer.body;
    return true;
}

bool ImdsClient::available() { return takeToken(); }

std::optional<std::string> ImdsClient::spotInstanceAction() { return get("/latest/meta-data/spot/instance-action"); }

std::optional<std::string> ImdsClient::get(const std::string& path) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!takeToken()) return std::nullopt;
        auto r = request("GET", endpoint_ + path);
        r.headers.push_back("X-aws-ec2-metadata-token: " + token_);
        const auto answer = http_.perform(r);
        if (answer.status == 200) return answer.body;
        if (answer.status != 401) return std::nullopt;
        token_.clear();  // 401: the token expired; take a new one once
    }
    return std::nullopt;
}

std::optional<S3Credentials> ImdsClient::roleCredentials() {
    const auto roles = get(kRolePath);
    if (!roles) return std::nullopt;
    const std::string role = roles->substr(0, roles->find('\n'));
    if (role.empty()) return std::nullopt;
    const auto document = get(kRolePath + role);
    if (!document) return std::nullopt;
    return parseCredentials(*document, role);
}

std::string ImdsClient::region() {
    const auto r = get("/latest/meta-data/placement/region");
    return r ? *r : "";
}

S3Credentials ImdsClient::parseCredentials(const std::string& json, const std::string& role) {
    const auto doc = nlohmann::json::parse(json, nullptr, false);
    const std::string where = "the instance role '" + role + "' credentials from the instance metadata service";
    if (!doc.is_object()) throw ConfigError(where + " are not a JSON object: check the instance's IMDS");
    auto field = [&](const char* name) {
        const auto it = doc.find(name);
        if (it == doc.end() || !it->is_string() || it->get<std::string>().empty())
            throw ConfigError(where + " have no string \"" + name + "\": check the instance's IMDS");
        return it->get<std::string>();
    };
    if (const auto code = doc.find("Code"); code != doc.end() && code->is_string() && code->get<std::string>() != "Success")
        throw ConfigError(where + " say \"" + code->get<std::string>() + "\": check the role attached to the instance");
    S3Credentials c;
    c.accessKeyId = field("AccessKeyId");
    c.secretAccessKey = field("SecretAccessKey");
    c.sessionToken = field("Token");
    c.expiration = parseIsoTime(field("Expiration"), "Expiration");
    c.source = "instance role '" + role + "'";
    return c;
}

}  // namespace streetgan::s3
