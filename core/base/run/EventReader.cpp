// EventReader (Events.h): a line of events.jsonl or of the attach protocol into a filled
// EventFieldBag, by the strict single-pass scan or by nlohmann's SAX parser, then into its typed
// event by the schema's table (Events.cpp).
#include <charconv>
#include <cstring>
#include <vector>

#include "base/run/EventFieldBag.h"
#include "base/run/Events.h"
#include "base/util/FloatChars.h"

namespace streetgan {
namespace events {
namespace {

using json = nlohmann::json;
namespace F = EventField;

// ---------------------------------------------------------------------------------------------
// Readers: nlohmann's SAX parser, and the strict scan for the common form.

// Builds the JSON value of a nested member from SAX events.
class JsonBuilder {
public:
    void begin(json container) {
        root_ = std::move(container);
        stack_.assign(1, &root_);
    }
    void open(json container) {
        json& top = *stack_.back();
        json* p;
        if (top.is_array()) {
            top.push_back(std::move(container));
            p = &top.back();
        } else {
            *member_ = std::move(container);
            p = member_;
        }
        stack_.push_back(p);
    }
    void key(const std::string& k) { member_ = &(*stack_.back())[k]; }
    void value(json v) {
        json& top = *stack_.back();
        if (top.is_array())
            top.push_back(std::move(v));
        else
            *member_ = std::move(v);
    }
    void close() { stack_.pop_back(); }
    json take() { return std::move(root_); }

private:
    json root_;
    std::vector<json*> stack_;
    json* member_ = nullptr;
};

// SAX handler: the object's members into `top`; on an attach line (`event` set) the members of
// its "event" object into `event`. Nested values are built as JSON into the bag's extra.
class LineSax {
public:
    LineSax(EventFieldBag& top, OwnedStrings& topStrings, EventFieldBag* event, OwnedStrings* eventStrings)
        : top_(top), topStrings_(topStrings), event_(event), eventStrings_(eventStrings), cur_(&top), curStrings_(&topStrings) {}

    bool null() {
        Slot s;
        s.type = SlotType::Null;
        return scalar(s, nullptr);
    }
    bool boolean(bool v) {
        Slot s;
        s.type = SlotType::Bool, s.b = v;
        return scalar(s, v);
    }
    bool number_integer(json::number_integer_t v) {
        Slot s;
        s.type = SlotType::Int, s.i = v;
        return scalar(s, v);
    }
    bool number_unsigned(json::number_unsigned_t v) {
        Slot s;
        s.type = SlotType::UInt, s.u = v;
        return scalar(s, v);
    }
    bool number_float(json::number_float_t v, const std::string&) {
        Slot s;
        s.type = SlotType::Float, s.d = v;
        return scalar(s, v);
    }
    bool string(std::string& v) {
        if (depth_ == 0) return notObject();
        if (building_) return builder_.value(v), true;
        if (field_ == kNoField) return cur_->addExtra(key_, v), true;
        std::string& copy = (*curStrings_)[field_];
        copy.assign(v);
        Slot& s = cur_->put(field_);
        s.type = SlotType::String;
        s.s = copy;
        return true;
    }
    bool binary(json::binary_t&) { return true; }  // never from JSON text
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& k) {
        if (building_) return builder_.key(k), true;
        field_ = scalarFieldNamed(k);
        key_.assign(k);
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& ex) {
        errorPosition_ = position;
        error_ = ex.what();
        return false;
    }

    bool isNotObject() const { return notObject_; }
    size_t errorPosition() const { return errorPosition_; }
    const std::string& error() const { return error_; }

private:
    bool notObject() {
        notObject_ = true;
        return false;
    }
    bool scalar(Slot s, json v) {
        if (depth_ == 0) return notObject();
        if (building_) return builder_.value(std::move(v)), true;
        if (field_ == kNoField) return cur_->addExtra(key_, std::move(v)), true;
        cur_->put(field_) = s;
        return true;
    }
    bool open(bool object) {
        if (depth_ == 0) {
            if (!object) return notObject();
            depth_ = 1;
            return true;
        }
        ++depth_;
        if (building_) {
            builder_.open(object ? json::object() : json::array());
        } else if (object && event_ && cur_ == &top_ && key_ == F::kEvent) {
            top_.setHasEvent();
            cur_ = event_;
            curStrings_ = eventStrings_;
            eventDepth_ = depth_;
        } else {
            builder_.begin(object ? json::object() : json::array());
            building_ = true;
            buildDepth_ = depth_;
        }
        return true;
    }
    bool close() {
        if (building_) {
            if (depth_ == buildDepth_) {
                building_ = false;
                cur_->addExtra(key_, builder_.take());
            } else {
                builder_.close();
            }
        } else if (cur_ != &top_ && depth_ == eventDepth_) {
            cur_ = &top_;
            curStrings_ = &topStrings_;
            key_.clear();  // the "event" member is complete
        }
        --depth_;
        return true;
    }

    EventFieldBag& top_;
    OwnedStrings& topStrings_;
    EventFieldBag* event_;
    OwnedStrings* eventStrings_;
    EventFieldBag* cur_;
    OwnedStrings* curStrings_;
    int depth_ = 0, eventDepth_ = 0, buildDepth_ = 0;
    bool building_ = false, notObject_ = false;
    Field field_ = kNoField;
    std::string key_;  // the current member's name at the bag's level
    JsonBuilder builder_;
    size_t errorPosition_ = 0;
    std::string error_;
};

// The strict scan: accepts only a complete object of numbers (JSON's grammar), true/false/null
// and strings of printable ASCII without escapes, plus, on an attach line, one such object as
// "event". On anything else it gives up and nlohmann reads the line; so it never has to judge
// an escape or a malformed line, and what it accepts reads exactly as nlohmann would read it.
class StrictScan {
public:
    explicit StrictScan(std::string_view line) : p_(line.data()), e_(line.data() + line.size()) {}

    bool line(EventFieldBag& top, EventFieldBag* event) {
        ws();
        if (p_ >= e_ || *p_ != '{' || !object(top, event)) return false;
        ws();
        return p_ == e_;
    }

private:
    void ws() {
        while (p_ < e_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    }
    bool string(std::string_view& out) {  // at the opening quote
        const char* s = ++p_;
        for (; p_ < e_; ++p_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = std::string_view(s, static_cast<size_t>(p_ - s));
                ++p_;
                return true;
            }
            if (c == '\\' || c < 0x20 || c >= 0x80) return false;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (static_cast<size_t>(e_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
        p_ += word.size();
        return true;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    // JSON's number grammar; integers as nlohmann types them (unsigned unless negative); an
    // integer out of range is left to nlohmann (which makes it a double).
    bool number(Slot& s) {
        const char* start = p_;
        if (*p_ == '-') ++p_;
        if (p_ >= e_) return false;
        if (*p_ == '0') {
            ++p_;
        } else if (digit(*p_)) {
            while (p_ < e_ && digit(*p_)) ++p_;
        } else {
            return false;
        }
        bool isFloat = false;
        if (p_ < e_ && *p_ == '.') {
            isFloat = true;
            ++p_;
            if (p_ >= e_ || !digit(*p_)) return false;
            while (p_ < e_ && digit(*p_)) ++p_;
        }
        if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
            isFloat = true;
            ++p_;
            if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (p_ >= e_ || !digit(*p_)) return false;
            while (p_ < e_ && digit(*p_)) ++p_;
        }
        std::from_chars_result r{};
        if (isFloat) {
            s.type = SlotType::Float;
            r = parseDouble(start, p_, s.d);
        } else if (*start == '-') {
            s.type = SlotType::Int;
            r = std::from_chars(start, p_, s.i);
        } else {
            s.type = SlotType::UInt;
            r = std::from_chars(start, p_, s.u);
        }
        return r.ec == std::errc() && r.ptr == p_;
    }
    bool value(Slot& s) {  // a string, literal or number
        switch (*p_) {
            case '"':
                s.type = SlotType::String;
                return string(s.s);
            case 't':
                s.type = SlotType::Bool, s.b = true;
                return literal("true");
            case 'f':
                s.type = SlotType::Bool, s.b = false;
                return literal("false");
            case 'n':
                s.type = SlotType::Null;
                return literal("null");
            default:
                return number(s);
        }
    }
    static void store(EventFieldBag& bag, std::string_view key, const Slot& s) {
        if (const Field f = scalarFieldNamed(key); f != kNoField) {
            bag.put(f) = s;
            return;
        }
        switch (s.type) {
            case SlotType::Null:
                bag.addExtra(key, nullptr);
                break;
            case SlotType::Bool:
                bag.addExtra(key, s.b);
                break;
            case SlotType::Int:
                bag.addExtra(key, s.i);
                break;
            case SlotType::UInt:
                bag.addExtra(key, s.u);
                break;
            case SlotType::Float:
                bag.addExtra(key, s.d);
                break;
            case SlotType::String:
                bag.addExtra(key, std::string(s.s));
                break;
        }
    }
    bool object(EventFieldBag& bag, EventFieldBag* event) {  // at '{'
        ++p_;
        ws();
        if (p_ < e_ && *p_ == '}') return ++p_, true;
        for (;;) {
            std::string_view key;
            if (p_ >= e_ || *p_ != '"' || !string(key)) return false;
            ws();
            if (p_ >= e_ || *p_ != ':') return false;
            ++p_;
            ws();
            if (p_ >= e_) return false;
            if (*p_ == '{') {
                if (!event || key != F::kEvent || !object(*event, nullptr)) return false;
                bag.setHasEvent();
            } else {
                Slot s;
                if (!value(s)) return false;
                store(bag, key, s);
            }
            ws();
            if (p_ >= e_) return false;
            if (*p_ == '}') return ++p_, true;
            if (*p_ != ',') return false;
            ++p_;
            ws();
        }
    }

    const char* p_;
    const char* e_;
};

}  // namespace
}  // namespace events

using namespace events;  // this file's own helpers, and the bag

// ---------------------------------------------------------------------------------------------
// EventReader

struct EventReader::Impl {
    EventFieldBag top, event;
    OwnedStrings topStrings, eventStrings;

    // Fills `top` (and `event` for an attach line); returns Ok or why not.
    LineStatus fill(std::string_view line, bool attach, std::string& error) {
        top.clear();
        event.clear();
        if (StrictScan(line).line(top, attach ? &event : nullptr)) return LineStatus::Ok;
        top.clear();
        event.clear();
        if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) {
            error = "empty line";
            return LineStatus::NotJson;
        }
        LineSax sax(top, topStrings, attach ? &event : nullptr, attach ? &eventStrings : nullptr);
        if (json::sax_parse(line.data(), line.data() + line.size(), &sax)) return LineStatus::Ok;
        if (sax.isNotObject()) {
            error = "not a JSON object";
            return LineStatus::NotObject;
        }
        error = sax.error();
        // nlohmann counts the end of input as one more character read: an error there means
        // the text stopped mid-value.
        return sax.errorPosition() > line.size() ? LineStatus::Torn : LineStatus::NotJson;
    }
};

EventReader::EventReader() : impl_(std::make_unique<Impl>()) {}
EventReader::~EventReader() = default;

ParsedEvent EventReader::read(std::string_view line) {
    ParsedEvent r;
    r.status = impl_->fill(line, false, r.error);
    if (r.ok()) r.event = eventFromBag(impl_->top);
    return r;
}

ParsedAttachLine EventReader::readAttach(std::string_view line) {
    ParsedAttachLine r;
    r.status = impl_->fill(line, true, r.error);
    if (!r.ok()) return r;
    EventFieldBag& top = impl_->top;
    AttachLine& a = r.line;
    if (top.hasEvent()) {
        a.type = AttachLine::Type::Event;
        a.offset = top.offset(fOffset);
        a.end = top.offset(fEnd);
        a.event = eventFromBag(impl_->event);
    } else if (const json* reply = top.nested(F::kReply); reply && !reply->is_null()) {
        a.type = AttachLine::Type::Reply;
        a.reply = *reply;
    } else if (top.boolean(fLive).value_or(false)) {
        a.type = AttachLine::Type::Live;
        a.offset = top.offset(fOffset);
        a.state = top.string(fState);
    } else if (top.boolean(fEnd).value_or(false)) {
        a.type = AttachLine::Type::End;
        a.offset = top.offset(fOffset);
        a.state = top.string(fState);
    } else {
        r.status = LineStatus::NotProtocol;
        r.error = "not an attach protocol line";
    }
    return r;
}

}  // namespace streetgan
