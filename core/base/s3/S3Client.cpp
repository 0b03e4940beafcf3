#include "base/s3/S3Client.h"

#include <algorithm>
#include <random>
#include <thread>

#include "base/s3/S3Error.h"

namespace streetgan::s3 {

namespace {

bool retryable(const CurlSession::Response& r, const S3ErrorBody& body) {
    if (r.status == 0) return true;  // no answer: reset, refused, timed out
    if (r.status == 500 || r.status == 502 || r.status == 503 || r.status == 504) return true;
    return body.code == "SlowDown" || body.code == "RequestTimeout";
}

std::string header(const CurlSession::Response& r, const std::string& name) {
    const auto it = r.headers.find(name);
    return it == r.headers.end() ? "" : it->second;
}

}  // namespace

// Full jitter (AWS's "Exponential Backoff and Jitter"): a uniform wait in [0, min(cap, base*2^n)],
// so that many workers throttled together do not come back together.
std::chrono::milliseconds S3Client::backoff(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds cap, std::mt19937_64& rng) {
    const auto ceiling = std::min<long long>(cap.count(), base.count() << std::clamp(attempt, 0, 20));
    return std::chrono::milliseconds(std::uniform_int_distribution<long long>(0, std::max<long long>(ceiling, 1))(rng));
}

S3Client::S3Client(std::string bucket, S3ClientOptions options, CredentialSource credentials)
    : bucket_(std::move(bucket)), options_(std::move(options)), credentials_(std::move(credentials)) {
    while (!options_.endpoint.empty() && options_.endpoint.back() == '/') options_.endpoint.pop_back();
}

std::string S3Client::uriEncode(std::string_view text, bool keepSlash) {
    static const char* const hex = "0123456789ABCDEF";
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keepSlash && c == '/')) {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string S3Client::url(const Call& call) const {
    std::string base;
    if (!options_.endpoint.empty())
        base = options_.endpoint + "/" + bucket_;
    else if (bucket_.find('.') != std::string::npos)
        base = "https://s3." + options_.region + ".amazonaws.com/" + bucket_;
    else
        base = "https://" + bucket_ + ".s3." + options_.region + ".amazonaws.com";
    std::string u = base + (call.bucketLevel ? "" : "/" + uriEncode(call.key, true));
    // libcurl 7.88's SigV4 signs the query string as it is in the URL, without sorting or
    // re-encoding it (later libcurls canonicalise it): so it is written here already in SigV4's
    // canonical form, keys sorted (std::map) and every value fully encoded ('/' too).
    char sep = '?';
    for (const auto& [k, v] : call.query) {
        u += sep + uriEncode(k, false) + "=" + uriEncode(v, false);
        sep = '&';
    }
    return u;
}

CurlSession::Request S3Client::request(const Call& call) const {
    const S3Credentials creds = credentials_();
    CurlSession::Request r;
    r.method = call.method;
    r.url = url(call);
    r.range = call.range;
    r.body = call.body;
    r.sigv4 = "aws:amz:" + options_.region + ":s3";
    r.userpwd = creds.accessKeyId + ":" + creds.secretAccessKey;
    if (!creds.sessionToken.empty()) r.headers.push_back("x-amz-security-token: " + creds.sessionToken);
    if (!call.ifMatch.empty()) r.headers.push_back("If-Match: " + call.ifMatch);
    return r;
}

CurlSession::Response S3Client::send(const Call& call) {
    for (int attempt = 1;; ++attempt) {
        CurlSession::Response response = http_.perform(request(call));
        const bool ok = response.curlError.empty() && response.status >= 200 && response.status < 300;
        if (ok) return response;
        if (attempt >= options_.maxAttempts || !retryable(response, S3ErrorBody::parse(response.body))) return response;
        ++retries_;
        thread_local std::mt19937_64 rng{std::random_device{}()};
        std::this_thread::sleep_for(backoff(attempt, options_.backoffBase, options_.backoffCap, rng));
    }
}

void S3Client::fail(const Call& call, const CurlSession::Response& r) const {
    using K = S3Error::Kind;
    const std::string where = options_.endpoint.empty() ? "AWS S3 (" + options_.region + ")" : options_.endpoint;
    if (r.status == 0)
        throw S3Error(K::Network, call.what + ": no answer from " + where + " after " + std::to_string(options_.maxAttempts) + " attempts (" + r.curlError +
                                      "): check the network" + (options_.endpoint.empty() ? "" : " and --s3-endpoint"));
    const S3ErrorBody body = S3ErrorBody::parse(r.body);
    const std::string code = body.code.empty() ? "HTTP " + std::to_string(r.status) : body.code;
    const std::string region = !header(r, "x-amz-bucket-region").empty() ? header(r, "x-amz-bucket-region") : body.region;
    if (r.status == 301 || code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" || code == "IllegalLocationConstraintException")
        throw S3Error(K::WrongRegion, region.empty() ? call.what + ": the bucket '" + bucket_ + "' is not in the region " + options_.region + " (" + code +
                                                           "): set AWS_REGION to the bucket's region"
                                                     : call.what + ": the bucket '" + bucket_ + "' is in the region " + region + ", not " + options_.region +
                                                           ": set AWS_REGION=" + region + " (or the profile's region)");
    if (code == "InvalidAccessKeyId")
        throw S3Error(K::Credentials, call.what + ": " + where + " does not know the access key " + credentials_().accessKeyId +
                                          " (InvalidAccessKeyId): check AWS_ACCESS_KEY_ID or the profile's aws_access_key_id");
    if (code == "SignatureDoesNotMatch")
        throw S3Error(K::Credentials, call.what + ": " + where + " rejects the signature (SignatureDoesNotMatch): check the secret key for " +
                                          credentials_().accessKeyId + " (AWS_SECRET_ACCESS_KEY or the profile's aws_secret_access_key)");
    if (code == "ExpiredToken" || code == "InvalidToken" || code == "TokenRefreshRequired")
        throw S3Error(K::Credentials, call.what + ": the session token was refused (" + code + "): renew the temporary credentials (AWS_SESSION_TOKEN)");
    if (code == "NoSuchBucket")
        throw S3Error(K::NoSuchBucket, call.what + ": there is no bucket '" + bucket_ + "' at " + where + ": check the bucket name" +
                                           (options_.endpoint.empty() ? "" : " and --s3-endpoint"));
    if (code == "NoSuchKey" || (r.status == 404 && call.method == "HEAD"))
        throw S3Error(K::NotFound, call.what + ": no such object: check the key (list the prefix)");
    if (code == "AccessDenied" || r.status == 403) {
        // The action and resource the request needs, as an IAM policy names them (docs/s3.md).
        const std::string arn = "arn:aws:s3:::" + bucket_;
        std::string need = call.method == "PUT" || call.method == "POST" || call.method == "DELETE"
                               ? (call.bucketLevel ? "s3:CreateBucket on " + arn : "s3:PutObject on " + arn + "/" + call.key)
                               : (call.bucketLevel ? "s3:ListBucket on " + arn : "s3:GetObject on " + arn + "/" + call.key);
        // Without s3:ListBucket, AWS answers a GET of a missing key 403, not 404.
        if (!call.bucketLevel && call.method != "PUT") need += " (and s3:ListBucket on " + arn + ", or a missing key reads as denied)";
        throw S3Error(K::AccessDenied, call.what + ": access denied (" + code + ") to " + credentials_().source + ": the IAM policy must allow " + need);
    }
    if (code == "SlowDown" || r.status == 503)
        throw S3Error(K::Throttled, call.what + ": still throttled (" + code + ") after " + std::to_string(options_.maxAttempts) +
                                        " attempts: fewer requests in flight, or retry later");
    throw S3Error(K::Other, call.what + ": " + where + " answered HTTP " + std::to_string(r.status) +
                                (body.code.empty() ? "" : " " + body.code + (body.message.empty() ? "" : " (" + body.message + ")")));
}

std::string S3Client::get(const std::string& key) { return read(key, 0, std::nullopt); }

std::string S3Client::getRange(const std::string& key, std::uint64_t offset, std::uint64_t length) {
    if (length == 0) return "";
    return read(key, offset, length);
}

S3Client::Call S3Client::getCall(const std::string& key, std::uint64_t offset, std::optional<std::uint64_t> length) const {
    Call call{"GET", key, "GET s3://" + bucket_ + "/" + key, {}, "", {}, false, ""};
    if (length) {
        call.what += " bytes " + std::to_string(offset) + "+" + std::to_string(*length);
        call.range = std::to_string(offset) + "-" + std::to_string(offset + *length - 1);
    }
    return call;
}

bool S3Client::rangeStartsAt(const CurlSession::Response& r, std::uint64_t first) {
    // "bytes FIRST-LAST/TOTAL"
    const std::string contentRange = header(r, "content-range");
    const size_t dash = contentRange.find('-');
    return contentRange.rfind("bytes ", 0) == 0 && dash != std::string::npos && contentRange.substr(6, dash - 6) == std::to_string(first);
}

CurlSession::Request S3Client::getRequest(const std::string& key, std::uint64_t offset, std::uint64_t length) const {
    return request(getCall(key, offset, length > 0 ? std::optional<std::uint64_t>(length) : std::nullopt));
}

S3Client::GetOutcome S3Client::judgeGet(CurlSession::Response& r, std::uint64_t offset, std::uint64_t length) {
    const bool startsRight = length == 0 ? r.status == 200 : r.status == 206 && rangeStartsAt(r, offset);
    if (startsRight) {
        if (length > 0 && r.body.size() > length) r.body.resize(length);
        return r.curlError.empty() || (length > 0 && r.body.size() == length) ? GetOutcome::Done : GetOutcome::Cut;
    }
    if (r.status == 0) return GetOutcome::Retry;  // no answer
    if ((r.curlError.empty() && r.status >= 200 && r.status < 300) || r.status == 416) return GetOutcome::Ask;
    return retryable(r, S3ErrorBody::parse(r.body)) ? GetOutcome::Retry : GetOutcome::Fail;
}

std::string S3Client::resumeGet(const std::string& key, std::uint64_t offset, std::uint64_t length, std::string got, std::string etag) {
    if (length > 0 && got.size() >= length) return got;
    return read(key, offset, length > 0 ? std::optional<std::uint64_t>(length) : std::nullopt, std::move(got), std::move(etag));
}

void S3Client::throwFor(const std::string& key, std::uint64_t offset, std::uint64_t length, const CurlSession::Response& answer) const {
    fail(getCall(key, offset, length > 0 ? std::optional<std::uint64_t>(length) : std::nullopt), answer);
}

std::string S3Client::read(const std::string& key, std::uint64_t offset, std::optional<std::uint64_t> length, std::string body, std::string etag) {
    Call call = getCall(key, offset, length);
    int fruitless = 0;  // resumed requests in a row that brought no byte
    bool resuming = !body.empty() || !etag.empty();
    if (resuming) {  // a first answer cut part-way (resumeGet): on from the byte it reached
        ++retries_;
        ++resumes_;
        call.range = std::to_string(offset + body.size()) + "-" + (length ? std::to_string(offset + *length - 1) : "");
        call.ifMatch = etag;
    }
    for (;; resuming = true) {
        auto r = send(call);
        if (r.curlError.empty() && r.status == 416) return body;  // the range starts at or past the end
        if (resuming && r.curlError.empty() && r.status == 412)
            throw S3Error(S3Error::Kind::Changed,
                          call.what + ": the object was replaced while it was read (its ETag is no longer " + etag + "): read it again");
        if (r.status != 200 && r.status != 206) fail(call, r);
        const std::string tag = header(r, "etag");
        if (resuming && !etag.empty() && !tag.empty() && tag != etag)  // a server that ignores If-Match
            throw S3Error(S3Error::Kind::Changed,
                          call.what + ": the object was replaced while it was read (ETag " + etag + ", now " + tag + "): read it again");
        if (etag.empty()) etag = tag;
        const std::uint64_t next = offset + body.size();  // the first byte still wanted
        std::string got = std::move(r.body);
        if (r.status == 200 && !call.range.empty()) got.erase(0, std::min<std::uint64_t>(next, got.size()));  // Range ignored: the whole object came
        if (r.status == 206 && !rangeStartsAt(r, next))  // it must start where asked, or the bytes would be misplaced
            throw S3Error(S3Error::Kind::Other, call.what + ": " + (options_.endpoint.empty() ? "S3" : options_.endpoint) + " answered the range " +
                                                    std::to_string(next) + "- with Content-Range '" + header(r, "content-range") + "': check --s3-endpoint");
        if (length) got.resize(std::min<std::uint64_t>(got.size(), *length - body.size()));
        body += got;
        if (r.curlError.empty() || (length && body.size() == *length)) return body;
        // The connection dropped mid-body: go on from the byte reached, with the same ETag.
        fruitless = got.empty() ? fruitless + 1 : 0;
        if (fruitless >= options_.maxAttempts)
            throw S3Error(S3Error::Kind::Network, call.what + ": the connection dropped " + std::to_string(fruitless) + " times in a row at byte " +
                                                      std::to_string(offset + body.size()) + " (" + r.curlError + "): check the network");
        ++retries_;
        ++resumes_;
        if (fruitless > 0) {
            thread_local std::mt19937_64 rng{std::random_device{}()};
            std::this_thread::sleep_for(backoff(fruitless, options_.backoffBase, options_.backoffCap, rng));
        }
        call.range = std::to_string(offset + body.size()) + "-" + (length ? std::to_string(offset + *length - 1) : "");
        call.ifMatch = etag;
    }
}

S3Object S3Client::head(const std::string& key) {
    Call call{"HEAD", key, "HEAD s3://" + bucket_ + "/" + key, {}, "", {}, false, ""};
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
    S3Object o{key, 0, header(r, "etag")};
    if (o.etag.size() >= 2 && o.etag.front() == '"') o.etag = o.etag.substr(1, o.etag.size() - 2);
    try {
        o.size = std::stoull(header(r, "content-length"));
    } catch (const std::exception&) {
        throw S3Error(S3Error::Kind::Other, call.what + ": the answer has no Content-Length: check --s3-endpoint points at an S3 service");
    }
    return o;
}

S3ListPage S3Client::listPage(const std::string& prefix, const std::string& continuationToken, int maxKeys, const std::string& delimiter) {
    Call call{"GET", "", "list s3://" + bucket_ + "/" + prefix, {{"list-type", "2"}, {"max-keys", std::to_string(maxKeys)}}, "", {}, true, ""};
    if (!prefix.empty()) call.query["prefix"] = prefix;
    if (!continuationToken.empty()) call.query["continuation-token"] = continuationToken;
    if (!delimiter.empty()) call.query["delimiter"] = delimiter;
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
    return S3ListPage::parse(r.body, "the listing of s3://" + bucket_ + "/" + prefix);
}

std::vector<S3Object> S3Client::list(const std::string& prefix, int pageSize) {
    std::vector<S3Object> all;
    std::string token;
    do {
        S3ListPage page = listPage(prefix, token, pageSize);
        std::move(page.objects.begin(), page.objects.end(), std::back_inserter(all));
        token = page.truncated ? page.nextContinuationToken : "";
    } while (!token.empty());
    return all;
}

void S3Client::put(const std::string& key, std::string_view body) {
    Call call{"PUT", key, "PUT s3://" + bucket_ + "/" + key, {}, "", body, false, ""};
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
}

void S3Client::createBucket() {
    Call call{"PUT", "", "create bucket s3://" + bucket_, {}, "", {}, true, ""};
    auto r = send(call);
    if (!r.curlError.empty() || r.status != 200) fail(call, r);
}

}  // namespace streetgan::s3
