// PARAMS.txt for ecnlab's ns-3 peer programs (ns3_dumbbell.cc, ns3_dctcp.cc, ns3_bbr.cc):
// one "key value..." line per parameter, lists as space-separated values,
// '#' lines ignored. Written by ecnlab.bench.ns3cxx.params_text; a missing key
// or an unreadable file ends the program with exit status 2.

#ifndef ECNLAB_NS3_PARAMS_H
#define ECNLAB_NS3_PARAMS_H

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct Params
{
    std::string who; // the program, for error messages
    std::map<std::string, std::vector<std::string>> kv;

    const std::vector<std::string>& Values(const std::string& key) const
    {
        auto it = kv.find(key);
        if (it == kv.end())
        {
            std::cerr << who << ": parameter " << key << " missing" << std::endl;
            std::exit(2);
        }
        return it->second;
    }

    double Num(const std::string& key) const
    {
        return std::stod(Values(key).at(0));
    }

    bool Flag(const std::string& key) const
    {
        return Values(key).at(0) == "true";
    }
};

inline Params
ReadParams(const char* who, const char* path)
{
    Params p;
    p.who = who;
    std::ifstream in(path);
    if (!in)
    {
        std::cerr << who << ": cannot read " << path << std::endl;
        std::exit(2);
    }
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream words(line);
        std::string key;
        words >> key;
        std::vector<std::string> values;
        for (std::string v; words >> v;)
        {
            values.push_back(v);
        }
        p.kv[key] = values;
    }
    return p;
}

#endif
